/// "Did you mean": the subcommand or option a mistyped word most likely meant.
///
/// Near enough is an optimal-string-alignment distance (insertions, deletions, substitutions and
/// swaps of two neighbours each count one) of at most a third of the candidate's length, and at
/// least 1, at most 2: `remvoe` and `rmove` are `remove`, `lst` and `lsit` are `list`, `chek` is
/// `check`; `phone` is nothing. Words of fewer than three characters are no one's typo: too many
/// real device ids are that short (`b` is one edit from `db`).
package enum Suggestion {
    /// The candidate closest to `word` when it is near enough to be a typo of it; `nil` otherwise,
    /// and for `word` itself (an exact match is no typo). Of equally near candidates, the first.
    package static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        guard word.count >= 3 else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let limit = min(2, max(1, candidate.count / 3))
            let distance = Self.distance(word, candidate)
            if distance <= limit, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The optimal-string-alignment distance between `a` and `b`, by characters.
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
