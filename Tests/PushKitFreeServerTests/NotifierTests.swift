import Foundation
import PushKitFreeCore
@testable import PushKitFreeServer
import Testing

/// ntfy's and Bark's publish protocols read into what the server sends (`NtfyMessage`,
/// `BarkMessage`), their routes in the catalogue, HTTP Basic carrying the secret, and their error
/// shapes.
@Suite("register-apns serve: ntfy and Bark")
struct NotifierTests {
    typealias Parameters = NtfyMessage.Parameters
    typealias Route = RouteCatalogue.Route

    /// The endpoint's routes, as its router holds them.
    static let routes = EndpointRouterTests.routes
    /// The first path segments no topic or key may be.
    static let reserved = routes.reservedNames

    static func ntfy(
        _ body: String = "Backup done", topic: String = "family", headers: [String: String] = [:],
        query: [String: String] = [:]
    ) throws(EndpointError) -> NtfyMessage {
        try NtfyMessage(
            topic: topic, body: Data(body.utf8), parameters: Parameters(headers: headers, query: query),
            reservedNames: Self.reserved)
    }

    @Test("ntfy: the body is the message; headers and their query aliases set title, priority, tags, click")
    func ntfyHeaders() throws {
        let plain = try Self.ntfy()
        #expect(plain.message == "Backup done" && plain.title == nil && plain.priority == 3 && plain.tags.isEmpty)
        #expect(
            plain.specification(criticalAlerts: false).content.interruptionLevel == nil,
            "3 leaves the level unset: active")

        let full = try Self.ntfy(
            headers: [
                "X-Title": "Server", "Priority": "urgent", "Tags": "warning, backup ,",
                "Click": "https://example.com/b",
                "Markdown": "yes", "X-Icon": "https://example.com/i.png", "X-Unknown": "whatever",
            ])
        #expect(full.title == "⚠️ Server", "an emoji tag goes before the title")
        #expect(full.message == "Backup done\nTags: backup", "other tags are listed under the message")
        #expect(full.priority == 5 && full.tags == ["warning", "backup"] && full.click == "https://example.com/b")
        let spec = full.specification(criticalAlerts: false)
        #expect(spec.content.title == "⚠️ Server" && spec.content.body == "Backup done\nTags: backup")
        #expect(spec.content.interruptionLevel == .timeSensitive)
        #expect(spec.content.customData == ["url": "https://example.com/b"])

        let query = try Self.ntfy("", query: ["t": "From query", "p": "1", "ta": "tada", "m": "Hello"])
        #expect(query.title == "🎉 From query" && query.message == "Hello" && query.priority == 1)
        #expect(query.specification(criticalAlerts: false).content.interruptionLevel == .passive)
        let header = try Self.ntfy(headers: ["Title": "header"], query: ["title": "query"])
        #expect(header.title == "header", "a header wins over the query")
        #expect(try Self.ntfy("").message == "triggered", "ntfy's message when none is given")
        #expect(try Self.ntfy(headers: ["Tags": "skull"]).message == "💀 Backup done", "no title: before the message")
    }

    @Test("ntfy: priorities 1 to 5 and their names map as send-push --urgency does; anything else is 400")
    func ntfyPriorities() throws {
        let levels: [String: InterruptionLevel?] = [
            "1": .passive, "min": .passive, "2": .passive, "low": .passive, "3": nil, "default": nil,
            "4": .timeSensitive, "High": .timeSensitive, "5": .timeSensitive, "max": .timeSensitive,
            "urgent": .timeSensitive,
        ]
        for (name, level) in levels {
            let message = try Self.ntfy(headers: ["X-Priority": name])
            #expect(message.specification(criticalAlerts: false).content.interruptionLevel == level, "\(name)")
            let allowed = message.specification(criticalAlerts: true).content.interruptionLevel
            #expect(allowed == (message.priority == 5 ? .critical : level), "\(name) with critical alerts on")
        }
        for bad in ["0", "6", "loud", "", "HIGH", " 1"] {
            #expect(throws: EndpointError.self) { try Self.ntfy(headers: ["Priority": bad]) }
        }
    }

    @Test("ntfy: scheduled delivery, a bad topic, a reserved name and a non-UTF-8 body are refused")
    func ntfyRefusals() throws {
        for (name, value) in [("Delay", "30m"), ("X-At", "tomorrow, 10am"), ("In", "1h")] {
            let error = try #require(throws: EndpointError.self) { try Self.ntfy(headers: [name: value]) }
            #expect(error.status.code == 400 && error.message.contains("scheduled delivery"), "\(error)")
            #expect(error.message.contains("remind-in.sh"), "the alternative is named")
        }
        #expect(throws: EndpointError.self) { try Self.ntfy(query: ["delay": "10s"]) }
        let bad = try #require(throws: EndpointError.self) { try Self.ntfy(topic: "a.b") }
        #expect(bad.status.code == 400 && bad.message.contains("1 to 64 letters"))
        let reserved = try #require(throws: EndpointError.self) { try Self.ntfy(topic: "metrics") }
        #expect(reserved.status.code == 404 && reserved.message.contains("reserved"))
        #expect(throws: EndpointError.self) {
            try NtfyMessage(
                topic: "t", body: Data([0xff, 0xfe]), parameters: Parameters(), reservedNames: Self.reserved)
        }
        #expect(throws: EndpointError.self) { try Self.ntfy(topic: String(repeating: "a", count: 65)) }
    }

    @Test("ntfy: a JSON publish names its topic; its members win over headers; a view action is the click")
    func ntfyJSON() throws {
        let json = try JSONValue.parse(
            Data(
                #"""
                {"topic": "ops", "title": "Down", "message": "db is down", "priority": 4, "tags": ["red_circle", "prod: eu"],
                 "actions": [{"action": "http", "url": "https://x"}, {"action": "view", "label": "Open", "url": "https://status"}],
                 "icon": "https://i", "markdown": true}
                """#.utf8))
        let message = try NtfyMessage(
            json: json, parameters: Parameters(headers: ["X-Priority": "min", "X-Tags": "x"]),
            reservedNames: Self.reserved)
        #expect(message.topic == "ops" && message.title == "🔴 Down" && message.priority == 4)
        #expect(message.message == "db is down\nTags: prod: eu" && message.click == "https://status")
        // Apprise's shape: the object holds the text, the headers the rest.
        let apprise = try NtfyMessage(
            json: try JSONValue.parse(Data(#"{"topic": "ops", "title": "T", "message": "B"}"#.utf8)),
            parameters: Parameters(headers: ["X-Priority": "high", "X-Click": "https://c", "X-Tags": "a,b"]),
            reservedNames: Self.reserved)
        #expect(apprise.priority == 4 && apprise.click == "https://c" && apprise.tags == ["a", "b"])
        for body in [#"{"message": "no topic"}"#, #"{"topic": 3}"#, #"{"topic": "t", "priority": [1]}"#, "[1]"] {
            #expect(throws: EndpointError.self, "\(body)") {
                try NtfyMessage(
                    json: try JSONValue.parse(Data(body.utf8)), parameters: Parameters(), reservedNames: Self.reserved)
            }
        }
        let scheduled = try JSONValue.parse(Data(#"{"topic": "t", "message": "m", "delay": "10m"}"#.utf8))
        #expect(throws: EndpointError.self) {
            try NtfyMessage(json: scheduled, parameters: Parameters(), reservedNames: Self.reserved)
        }
        let answer = message.answer(
            id: "abcdefghijkl", time: Date(timeIntervalSince1970: 1_700_000_000), devices: 2, deliveredTo: ["phone"])
        #expect(answer["event"] == "message" && answer["topic"] == "ops" && answer["time"] == 1_700_000_000)
        #expect(answer["priority"] == 4 && answer["devices"] == 2 && answer["delivered"] == 1)
        #expect(answer["delivered_to"] == ["phone"])
        #expect(NtfyMessage.makeID().count == 12)
    }

    @Test("Bark: level critical is a critical alert at volume / 10 (5 by default); a bad volume is 400 anywhere")
    func barkCritical() throws {
        func message(_ query: [String: String]) throws -> BarkMessage {
            try BarkMessage(
                path: ["device_key": "phone", "body": "Smoke"], body: [:], query: query, reservedNames: Self.reserved)
        }
        #expect(try message(["level": "critical", "volume": "3"]).specification.volume == 0.3)
        #expect(try message(["level": "critical"]).specification.volume == 0.5)
        #expect(try message(["level": "active", "volume": "3"]).specification.volume == nil, "ignored, as Bark does")
        for bad in ["11", "-1", "loud", "nan", ""] {
            #expect(throws: EndpointError.self, "\(bad)") { try message(["level": "critical", "volume": bad]) }
        }
    }

    @Test("Bark: the path wins over the body, the body over the query; every mapped parameter lands")
    func barkParameters() throws {
        let message = try BarkMessage(
            path: ["device_key": "phone", "title": "Path title", "body": "Path body"],
            body: ["title": "Body title", "subtitle": "Sub", "level": "timeSensitive", "badge": "3", "id": "build-42"],
            query: [
                "subtitle": "Query sub", "group": "ci", "url": "https://ci", "sound": "minuet", "isArchive": "1",
                "icon": "https://i", "category": "CI",
            ], reservedNames: Self.reserved)
        #expect(message.keys == ["phone"] && message.title == "Path title" && message.body == "Path body")
        #expect(message.subtitle == "Sub" && message.level == .timeSensitive && message.badge == 3)
        let spec = message.specification
        #expect(
            spec.content.title == "Path title" && spec.content.subtitle == "Sub" && spec.content.body == "Path body")
        #expect(spec.content.interruptionLevel == .timeSensitive && spec.content.threadID == "ci")
        #expect(spec.content.badge == 3 && spec.sound == "minuet" && spec.collapseID == "build-42")
        #expect(spec.content.category == "CI" && spec.content.customData == ["url": "https://ci"])

        let levels: [String: InterruptionLevel] = [
            "active": .active, "timeSensitive": .timeSensitive, "passive": .passive, "critical": .critical,
        ]
        for (name, level) in levels {
            let leveled = try BarkMessage(
                path: [:], body: ["device_key": "k", "body": "b", "level": .string(name)], query: [:],
                reservedNames: Self.reserved)
            #expect(leveled.level == level)
        }
        let batch = try BarkMessage(
            path: [:], body: ["device_keys": ["a", "b"], "device_key": "c", "markdown": "**m**", "badge": 0],
            query: [:],
            reservedNames: Self.reserved)
        #expect(batch.keys == ["c", "a", "b"] && batch.body == "**m**" && batch.badge == 0)
    }

    @Test("Bark: no key, nothing to say, a bad level or badge, ciphertext and delete without id are 400")
    func barkRefusals() throws {
        let bodies: [[String: JSONValue]] = [
            ["body": "no key"], ["device_key": "k"], ["device_key": "k", "body": "b", "level": "loud"],
            ["device_key": "k", "body": "b", "badge": "many"], ["device_key": "k", "body": "b", "badge": -1],
            ["device_key": "k", "ciphertext": "abc"], ["device_key": "k", "body": "b", "delete": "1"],
            ["device_key": "k", "delete": 1, "id": ""],
            ["device_key": "a/b", "body": "b"], ["device_keys": 3, "body": "b"],
        ]
        for body in bodies {
            let error = try #require(throws: EndpointError.self, "\(body)") {
                try BarkMessage(path: [:], body: body, query: [:], reservedNames: Self.reserved)
            }
            #expect(error.status.code == 400, "\(body): \(error)")
        }
        #expect(BarkMessage.collapseID("build-42") == "build-42" && BarkMessage.collapseID("") == nil)
        #expect(BarkMessage.collapseID("a\nb") == HexDigest.sha256("a\nb"), "a header cannot carry a line break")
        let long = String(repeating: "x", count: 65)
        #expect(BarkMessage.collapseID(long) == HexDigest.sha256(long) && HexDigest.sha256(long).count == 64)
        let off = try BarkMessage(
            path: [:], body: ["device_key": "k", "body": "b", "delete": "0"], query: [:], reservedNames: Self.reserved)
        #expect(off.body == "b" && !off.delete && off.specification.withdraw == nil, "delete: 0 is no deletion")
        let noID = try #require(throws: EndpointError.self) {
            try BarkMessage(
                path: [:], body: ["device_key": "k", "delete": true], query: [:], reservedNames: Self.reserved)
        }
        #expect(noID.message == "\"delete\" needs \"id\": the id the notification was sent with")
        #expect(
            BarkRoutes.form("title=Hello+there&body=a%26b&empty=&title=second") == [
                "title": "Hello there", "body": "a&b", "empty": "",
            ])
        let success = BarkMessage.success(
            time: Date(timeIntervalSince1970: 1_700_000_000), devices: 1, deliveredTo: ["phone"])
        #expect(success["code"] == 200 && success["message"] == "success" && success["timestamp"] == 1_700_000_000)
        #expect(success["delivered"] == 1 && success["delivered_to"] == ["phone"])
    }

    @Test("Bark: delete with id, from any source, withdraws the collapse id that id was sent with")
    func barkDelete() throws {
        let sources: [(path: [String: String], body: [String: JSONValue], query: [String: String])] = [
            ([:], ["device_key": "k", "delete": 1, "id": "build-7"], [:]),
            (["device_key": "k", "body": "ignored"], [:], ["delete": "1", "id": "build-7"]),
            (["device_key": "k"], ["delete": "true"], ["id": "build-7"]),
        ]
        for (path, body, query) in sources {
            let message = try BarkMessage(path: path, body: body, query: query, reservedNames: Self.reserved)
            #expect(message.delete && message.collapseID == "build-7", "\(body) \(query)")
            let spec = message.specification
            #expect(spec.withdraw == "build-7" && spec.pushType == .background && spec.content.body == nil)
            #expect(spec.collapseID == nil, "a withdrawal is sent without a collapse id of its own")
        }
        let long = String(repeating: "n", count: 70)
        let hashed = try BarkMessage(
            path: [:], body: ["device_key": "k", "delete": 1, "id": .string(long)], query: [:],
            reservedNames: Self.reserved)
        #expect(hashed.specification.withdraw == BarkMessage.collapseID(long) && HexDigest.sha256(long).count == 64)
        let off = try BarkMessage(
            path: [:], body: ["device_key": "k", "body": "b", "delete": "1", "id": "x"], query: ["delete": "0"],
            reservedNames: Self.reserved)
        #expect(off.delete, "the body wins over the query")
    }

    @Test("ntfy: a sequence id from the path, JSON, a header or the query; each given is checked")
    func ntfySequenceID() throws {
        #expect(try Self.ntfy().sequenceID == nil)
        #expect(try Self.ntfy(headers: ["X-Sequence-ID": "job-1"]).sequenceID == "job-1")
        #expect(try Self.ntfy(headers: ["Sequence-ID": "job-2"]).sequenceID == "job-2")
        #expect(try Self.ntfy(headers: ["SID": "job_3"]).sequenceID == "job_3")
        #expect(try Self.ntfy(query: ["sequence_id": "q1"]).sequenceID == "q1")
        #expect(try Self.ntfy(query: ["sid": "q2"]).sequenceID == "q2")
        #expect(try Self.ntfy(headers: ["X-Sequence-ID": "h"], query: ["sid": "q"]).sequenceID == "h")
        #expect(try Self.ntfy(headers: ["X-Sequence-ID": ""]).sequenceID == nil, "an empty one is none")
        let path = try NtfyMessage(
            topic: "family", sequenceID: "from-path", body: Data("m".utf8),
            parameters: Parameters(headers: ["X-Sequence-ID": "header"]), reservedNames: Self.reserved)
        #expect(path.sequenceID == "from-path", "the path wins")
        let json = try NtfyMessage(
            json: try JSONValue.parse(Data(#"{"topic": "ops", "sequence_id": "deploy-9"}"#.utf8)),
            parameters: Parameters(headers: ["SID": "header"]), reservedNames: Self.reserved)
        #expect(json.sequenceID == "deploy-9", "a JSON member wins over the headers")
        let longest = String(repeating: "a", count: 64)
        #expect(try Self.ntfy(headers: ["SID": longest]).sequenceID == longest)

        for bad in ["a.b", "a b", "ä", String(repeating: "a", count: 65), "a/b"] {
            let error = try #require(throws: EndpointError.self, "\(bad)") {
                try Self.ntfy(headers: ["X-Sequence-ID": bad])
            }
            #expect(error.status.code == 400 && error.message.hasPrefix("sequence_id \""), "\(error)")
            #expect(error.message.hasSuffix("must be 1 to 64 letters, digits, - or _"), "\(error)")
            #expect(throws: EndpointError.self) { try Self.ntfy(query: ["sid": bad]) }
        }
        #expect(throws: EndpointError.self, "an outranked one is checked too") {
            try Self.ntfy(headers: ["X-Sequence-ID": "good"], query: ["sequence_id": "a.b"])
        }
        #expect(throws: EndpointError.self) {
            try NtfyMessage(
                topic: "family", sequenceID: "a.b", body: Data(), parameters: Parameters(),
                reservedNames: Self.reserved)
        }
        for body in [#"{"topic": "t", "sequence_id": "a.b"}"#, #"{"topic": "t", "sequence_id": 7}"#] {
            #expect(throws: EndpointError.self, "\(body)") {
                try NtfyMessage(
                    json: try JSONValue.parse(Data(body.utf8)), parameters: Parameters(), reservedNames: Self.reserved)
            }
        }
    }

    @Test("ntfy: the collapse id is the SHA-256 of the topic and the sequence id, else of the message's id")
    func ntfyCollapseID() throws {
        let expected = HexDigest.sha256("ntfy\nfamily\njob-1")
        #expect(NtfyMessage.collapseID(topic: "family", sequenceID: "job-1") == expected && expected.count == 64)
        #expect(
            NtfyMessage.collapseID(topic: "family", sequenceID: "job-1")
                != NtfyMessage.collapseID(topic: "ops", sequenceID: "job-1"), "the topic is in it")
        let message = try Self.ntfy(headers: ["X-Sequence-ID": "job-1"])
        #expect(message.specification(criticalAlerts: false).collapseID == expected)
        #expect(
            try Self.ntfy(query: ["sid": "job-1"]).specification(criticalAlerts: false).collapseID == expected,
            "the same id replaces")
        let plain = try Self.ntfy()
        #expect(plain.id.count == 12 && NotifierAudience.isValidName(plain.id))
        #expect(
            plain.specification(criticalAlerts: false).collapseID
                == NtfyMessage.collapseID(topic: "family", sequenceID: plain.id))
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(message.answer(id: message.id, time: time, devices: 1, deliveredTo: [])["sequence_id"] == "job-1")
        #expect(plain.answer(id: plain.id, time: time, devices: 1, deliveredTo: [])["sequence_id"] == nil)
        let cleared = NtfyMessage.withdrawalAnswer(
            .clear, id: "abcdefghijkl", time: time, topic: "family", sequenceID: "job-1", devices: 2,
            deliveredTo: ["phone"])
        #expect(
            cleared == [
                "id": "abcdefghijkl", "time": 1_700_000_000, "event": "message_clear", "topic": "family",
                "sequence_id": "job-1", "devices": 2, "delivered": 1, "delivered_to": ["phone"],
            ])
        let deleted = NtfyMessage.withdrawalAnswer(
            .delete, id: "abcdefghijkl", time: time, topic: "family", sequenceID: "job-1", devices: 0,
            deliveredTo: [])
        #expect(deleted["event"] == "message_delete")
    }

    @Test("HTTP Basic carries the secret as its password, whatever the user, only where accepted")
    func basicCredentials() throws {
        let basic = "Basic " + Data("apprise:s3cret:with:colons".utf8).base64EncodedString()
        #expect(
            SharedSecret.presented(authorization: basic, openClawAuth: nil, acceptingBasic: true)
                == "s3cret:with:colons")
        #expect(SharedSecret.presented(authorization: basic, openClawAuth: nil) == nil, "not on the native routes")
        let noUser = "basic " + Data(":s3cret".utf8).base64EncodedString()
        #expect(SharedSecret.presented(authorization: noUser, openClawAuth: nil, acceptingBasic: true) == "s3cret")
        #expect(SharedSecret.presented(authorization: "Basic !!!", openClawAuth: nil, acceptingBasic: true) == nil)
        let noColon = "Basic " + Data("s3cret".utf8).base64EncodedString()
        #expect(SharedSecret.presented(authorization: noColon, openClawAuth: nil, acceptingBasic: true) == nil)
        #expect(SharedSecret.presented(authorization: "Bearer tok", openClawAuth: nil, acceptingBasic: true) == "tok")
    }

    @Test("routes: ntfy's /{key} and Bark's forms are in the catalogue; reserved first segments stay native")
    func routing() {
        let routes = Self.routes
        #expect(routes.match(method: "POST", path: "/") == .route(Route(method: "POST", path: "/"), parameter: nil))
        #expect(
            routes.match(method: "PUT", path: "/family")
                == .route(Route(method: "PUT", path: "/{key}"), parameter: "family"))
        #expect(
            routes.match(method: "POST", path: "/push") == .route(Route(method: "POST", path: "/push"), parameter: nil))
        #expect(routes.match(method: "GET", path: "/push") == .methodNotAllowed(allowed: ["POST"]))
        #expect(
            routes.match(method: "GET", path: "/k/b")
                == .route(Route(method: "GET", path: "/{key}/{first}"), parameter: "k"))
        #expect(
            routes.match(method: "POST", path: "/k/t/s/b")
                == .route(Route(method: "POST", path: "/{key}/{first}/{second}/{third}"), parameter: "k"))
        #expect(routes.match(method: "DELETE", path: "/family") == .methodNotAllowed(allowed: ["POST", "PUT"]))
        #expect(routes.match(method: "GET", path: "/family") == .methodNotAllowed(allowed: ["POST", "PUT"]))
        // A reserved first segment is never a topic or a key.
        #expect(routes.match(method: "POST", path: "/metrics") == .methodNotAllowed(allowed: ["GET", "HEAD"]))
        #expect(routes.match(method: "GET", path: "/health/x") == .notFound)
        #expect(routes.match(method: "GET", path: "/api/v1/devices/phone") == .methodNotAllowed(allowed: ["DELETE"]))
        #expect(
            routes.match(method: "POST", path: "/mcp") == .route(Route(method: "POST", path: "/mcp"), parameter: nil))
        #expect(routes.match(method: "GET", path: "/mcp") == .methodNotAllowed(allowed: ["POST"]))
        #expect(routes.match(method: "GET", path: "/a/b/c/d/e") == .notFound)
        for name in [
            "health", "metrics", "register-apns", "api", "hooks", "gateway", "registerSubscription",
            "triggerReplyFinished", "push", "mcp",
        ] {
            #expect(routes.reservedNames.contains(name), "\(name)")
        }
        #expect(!routes.reservedNames.contains("family") && routes.reservedNames.contains("v1"))
    }

    @Test("the access log leaves the texts of Bark's path forms out, and masks tokens as everywhere")
    func loggedPath() {
        #expect(
            AccessLog.loggedPath("/phone/Hello/World", routePath: "/{key}/{first}/{second}", routes: Self.routes)
                == "/phone/…/…")
        #expect(
            AccessLog.loggedPath("/phone/a/b/c", routePath: "/{key}/{first}/{second}/{third}", routes: Self.routes)
                == "/phone/…/…/…")
        #expect(
            AccessLog.loggedPath("/health/x", routePath: "/{key}/{first}", routes: Self.routes) == "/health/x",
            "reserved: as it is")
        #expect(AccessLog.loggedPath("/family", routePath: "/{key}", routes: Self.routes) == "/family")
        let token = String(repeating: "ab", count: 32)
        #expect(
            AccessLog.loggedPath("/\(token)/secret", routePath: "/{key}/{first}", routes: Self.routes)
                == "/abababab…abab/…")
    }

    @Test(
        "a path no route matched (404, or 405 for another method) keeps only its first segment unless it is the server's"
    )
    func loggedPathWithoutRoute() {
        #expect(
            AccessLog.loggedPath("/phone-3/TitleSecret/BodySecret", routePath: nil, routes: Self.routes)
                == "/phone-3/…/…")
        #expect(AccessLog.loggedPath("/phone-3/BodySecret", routePath: nil, routes: Self.routes) == "/phone-3/…")
        #expect(AccessLog.loggedPath("/phone-3", routePath: nil, routes: Self.routes) == "/phone-3")
        #expect(
            AccessLog.loggedPath("/api/v1/nothing/here", routePath: nil, routes: Self.routes) == "/api/v1/nothing/here")
        #expect(AccessLog.loggedPath("/gateway/nothing", routePath: nil, routes: Self.routes) == "/gateway/nothing")
    }

    @Test("errors in each protocol's shape, error among it")
    func errorShapes() {
        let error = EndpointError.unauthorized("wrong secret")
        let ntfy = NtfyErrors().body(of: error, requestID: nil)
        #expect(ntfy == ["code": 40100, "http": 401, "error": "wrong secret"])
        let bark = BarkErrors().body(of: error, requestID: nil, now: Date(timeIntervalSince1970: 5))
        #expect(bark == ["code": 401, "message": "wrong secret", "error": "wrong secret", "timestamp": 5])
    }
}
