// Placeholder: `send-push` gets its own issue.
import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#endif

StandardStreams.writeError("send-push: not implemented yet\n")
exit(ExitStatus.unavailable.rawValue)
