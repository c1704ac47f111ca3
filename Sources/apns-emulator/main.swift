// Placeholder: `apns-emulator` gets its own issue.
import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#endif

StandardStreams.writeError("apns-emulator: not implemented yet\n")
exit(ExitStatus.unavailable.rawValue)
