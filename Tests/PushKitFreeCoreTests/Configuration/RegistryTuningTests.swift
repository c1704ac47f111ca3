import Testing
@testable import PushKitFreeCore

@Suite("registry tuning from the environment")
struct RegistryTuningTests {
    @Test("unset or not a number: the defaults (1 MiB, 1 s, 10 s)")
    func defaults() {
        #expect(RegistryTuning(environment: [:]) == .defaults)
        let garbage = RegistryTuning(environment: [
            "PUSHKIT_REGISTRY_JOURNAL_BYTES": "lots", "PUSHKIT_REGISTRY_JOURNAL_IDLE_MS": "",
            "PUSHKIT_REGISTRY_RETRY_SECONDS": "nan",
        ])
        #expect(garbage == .defaults)
        #expect(RegistryTuning.defaults.journalThreshold == 1 << 20)
        #expect(RegistryTuning.defaults.journalIdle == .seconds(1))
        #expect(RegistryTuning.defaults.databaseRetry == .seconds(10))
    }

    @Test("numbers are taken, negative ones raised to the least that works")
    func values() {
        let set = RegistryTuning(environment: [
            "PUSHKIT_REGISTRY_JOURNAL_BYTES": "0", "PUSHKIT_REGISTRY_JOURNAL_IDLE_MS": "30",
            "PUSHKIT_REGISTRY_RETRY_SECONDS": "1.5",
        ])
        #expect(set.journalThreshold == 0 && set.journalIdle == .milliseconds(30) && set.databaseRetry == .seconds(1.5))
        let negative = RegistryTuning(environment: [
            "PUSHKIT_REGISTRY_JOURNAL_BYTES": "-5", "PUSHKIT_REGISTRY_JOURNAL_IDLE_MS": "-1",
            "PUSHKIT_REGISTRY_RETRY_SECONDS": "-3",
        ])
        #expect(
            negative.journalThreshold == 0 && negative.journalIdle == .milliseconds(1)
                && negative.databaseRetry == .zero)
    }

    @Test("the configuration reads them from its environment")
    func configuration() throws {
        let configuration = try Configuration(
            flags: ConfigurationFlags(),
            environment: ["HOME": "/home/ada", "PUSHKIT_REGISTRY_JOURNAL_BYTES": "4096"],
            file: ConfigurationFile(path: "/etc/pk.json", exists: false, values: [:]))
        #expect(configuration.registryTuning.journalThreshold == 4096)
    }
}
