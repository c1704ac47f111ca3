#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The questions in the registry's PostgreSQL database: the `pushkit_questions` table (schema
/// version 2), one row per question. `update` is one transaction under the questions' advisory
/// lock: it reads every row, runs the change, writes the rows it changed and deletes the ones it
/// removed, and commits. Questions are few (at most `QuestionBook.pendingLimit` pending, the
/// settled ones for a week), so reading them all is cheap.
package struct PostgresQuestions: QuestionStore {
    private let url: String
    private let session: PostgresSession

    package init(url: String, retry: Duration = RegistryTuning.defaults.databaseRetry) {
        self.url = url
        session = PostgresSession.shared(url: url, retry: retry)
    }

    package var location: String { PostgresURL.masked(url) }

    package func load() throws(RegistryError) -> QuestionBook {
        try session.typedErrors { try session.withConnection { connection in try read(on: connection) } }
    }

    @discardableResult
    package func update<Result>(_ body: (inout QuestionBook) throws -> Result) throws -> Result {
        try session.typedErrors {
            try session.transaction(lock: PostgresSchema.questionsLock) { connection in
                var book = try read(on: connection)
                let result = try body(&book)
                for id in book.changed.sorted() {
                    guard let question = book[id] else { continue }
                    try connection.execute(
                        """
                        INSERT INTO pushkit_questions (id, record) VALUES ($1, $2::jsonb)
                        ON CONFLICT (id) DO UPDATE SET record = excluded.record
                        """,
                        [id, question.record.serializedString()])
                }
                for id in book.removed.sorted() {
                    try connection.execute("DELETE FROM pushkit_questions WHERE id = $1", [id])
                }
                return result
            }
        }
    }

    private func read(on connection: PostgresConnection) throws -> QuestionBook {
        let rows = try connection.execute("SELECT record::text FROM pushkit_questions")
        var questions: [Question] = []
        for row in rows {
            guard let cell = row.first, let data = cell else { continue }
            let json: JSONValue
            do throws(JSONSyntaxError) {
                json = try JSONValue.parse(data)
            } catch {
                throw RegistryError.corruptStateFile(path: location, detail: "a question record: \(error.detail)")
            }
            questions.append(try Question(record: json, path: location))
        }
        return QuestionBook(questions)
    }
}
