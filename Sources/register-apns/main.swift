// Placeholder: `register-apns` gets its own issue.
import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#endif

StandardStreams.writeError("register-apns: not implemented yet\n")
exit(ExitStatus.unavailable.rawValue)
