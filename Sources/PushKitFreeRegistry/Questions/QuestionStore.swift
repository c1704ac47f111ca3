#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Where the endpoint keeps its questions, beside the registry: `questions.json` in the state
/// file's directory (`QuestionFile`), or the `pushkit_questions` table when the registry is a
/// PostgreSQL database (`PostgresQuestions`), so that two servers behind one address agree on
/// every question and its answer.
///
/// As with `RegistryStore`, `update` runs its body under the writers' lock on the questions as they
/// are, and stores what it changed, all or nothing; when it returns, the change is durable.
package protocol QuestionStore: Sendable {
    /// Where the questions are, for messages (a database URL has its password masked).
    var location: String { get }

    /// The questions as they are now.
    func load() throws(RegistryError) -> QuestionBook

    /// Changes the questions under the writers' lock and stores the change, all or nothing.
    /// `body` may run more than once (on fresh contents) when a database store tries again.
    @discardableResult
    func update<Result>(_ body: (inout QuestionBook) throws -> Result) throws -> Result
}

/// The questions in a JSON file: `{"questions": [<record>, …]}`, replaced atomically under an
/// exclusive lock on `<file>.lock`, mode 0600 (an answer token's digest is in it, never a token).
package struct QuestionFile: QuestionStore {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    package var location: String { path }

    package func load() throws(RegistryError) -> QuestionBook {
        let data: Data?
        do throws(FileSystemError) {
            data = try PosixFile.readIfPresent(path)
        } catch {
            throw .io(error)
        }
        guard let data else { return QuestionBook() }
        let json: JSONValue
        do throws(JSONSyntaxError) {
            json = try JSONValue.parse(data)
        } catch {
            throw .corruptStateFile(path: path, detail: error.detail)
        }
        guard let records = json["questions"]?.arrayValue else {
            throw .corruptStateFile(path: path, detail: "expected {\"questions\": [...]}")
        }
        var questions: [Question] = []
        questions.reserveCapacity(records.count)
        for record in records { questions.append(try Question(record: record, path: path)) }
        return QuestionBook(questions)
    }

    @discardableResult
    package func update<Result>(_ body: (inout QuestionBook) throws -> Result) throws -> Result {
        let lock: FileLock
        do throws(FileSystemError) {
            lock = try FileLock.forCache(at: path)
        } catch {
            throw error.exitStatus == .configuration ? RegistryError.unsafeLocation(error) : .cannotCreate(error)
        }
        return try withExtendedLifetime(lock) {
            var book = try load()
            let result = try body(&book)
            guard book.hasChanges else { return result }
            let records = book.questions.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.record)
            do throws(FileSystemError) {
                try PosixFile.replaceAtomically(
                    path, with: JSONValue.object(["questions": .array(records)]).serialized())
            } catch {
                throw RegistryError.io(error)
            }
            return result
        }
    }
}

extension Configuration {
    /// The question store beside the registry `state_file` names: its database, or
    /// `questions.json` in the state file's directory.
    package func questionStore() -> any QuestionStore {
        let location = stateFile.value
        if PostgresURL.isDatabaseURL(location) {
            return PostgresQuestions(url: location, retry: registryTuning.databaseRetry)
        }
        let directory = PosixFile.parentDirectory(of: location)
        return QuestionFile(path: (directory.isEmpty ? "." : directory) + "/questions.json")
    }
}
