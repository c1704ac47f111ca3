#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// A program shipped beside a tool that the tool hands a subcommand to, the way `git` runs
/// `git-<command>`: `register-apns serve` runs `register-apns-serve`, so `register-apns` does not
/// link the server's libraries and starts as fast without them.
package enum CompanionExecutable {
    /// The companion's path: beside the running executable (`/proc/self/exe`), else on `PATH`.
    package static func locate(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = own.lastIndex(of: "/") {
                let candidate = own[..<slash] + "/" + name
                if access(candidate, X_OK) == 0 { return String(candidate) }
            }
        }
        for directory in (ToolSupport.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return String(candidate) }
        }
        return nil
    }

    /// Replaces this process with `name`, passing `arguments` (after argv[0]) unchanged.
    /// Returns only when it cannot: the companion is missing or cannot be executed.
    /// - Returns: why it could not run.
    package static func replaceProcess(with name: String, arguments: [String]) -> String {
        guard let path = locate(name) else {
            return
                "\(name) is not installed beside this program or on PATH (make install puts it in the same directory)"
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([name] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        let message = String(cString: strerror(errno))
        return "cannot run \(path): \(message)"
    }
}
