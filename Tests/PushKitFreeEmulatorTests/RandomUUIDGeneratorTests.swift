import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

@Suite("random UUID generator")
struct RandomUUIDGeneratorTests {
    @Test("lowercase canonical version-4 UUIDs that Foundation parses, all different")
    func uuids() {
        var generator = RandomUUIDGenerator()
        var seen = Set<String>()
        for _ in 0..<1000 {
            let text = generator.uuidString()
            #expect(APNsRequest.isCanonicalUUID(text), "\(text)")
            #expect(UUID(uuidString: text)?.uuidString.lowercased() == text)
            let characters = Array(text)
            #expect(characters[14] == "4", "version 4: \(text)")
            #expect("89ab".contains(characters[19]), "RFC 4122 variant: \(text)")
            seen.insert(text)
        }
        #expect(seen.count == 1000)
    }

    @Test("a fixed seed repeats the sequence")
    func seeded() {
        var first = RandomUUIDGenerator(seed: (1, 2, 3, 4)), second = RandomUUIDGenerator(seed: (1, 2, 3, 4))
        #expect(first.uuidString() == second.uuidString())
    }
}
