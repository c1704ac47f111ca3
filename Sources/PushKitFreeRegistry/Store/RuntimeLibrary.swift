#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A C library opened at run time with `dlopen` and kept open for the life of the process, the way
/// the optional stores load theirs (libpq for PostgreSQL, libsqlite3 for `import devices.db`): no
/// tool links them, so none pays for them at start-up, and a machine without one fails only what
/// needs it.
package struct RuntimeLibrary {
    /// The name it was opened by (`libpq.so.5`).
    package let soname: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `soname` with `flags` (`RTLD_NOW`, `RTLD_LAZY`, ...).
    /// - Returns: the library, or the loader's reason when it cannot be loaded.
    package static func open(_ soname: String, flags: Int32) -> Swift.Result<RuntimeLibrary, RuntimeLibraryError> {
        guard let handle = dlopen(soname, flags) else {
            return .failure(RuntimeLibraryError(reason: dlerror().map { String(cString: $0) } ?? "not found"))
        }
        return .success(RuntimeLibrary(soname: soname, handle: handle))
    }

    /// The function `name`, as the C function type `type`; `nil` when the library has no such symbol.
    package func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }
}

/// Why `RuntimeLibrary.open` failed: the dynamic loader's message.
package struct RuntimeLibraryError: Error {
    /// The loader's message (`dlerror()`), or "not found" when it gave none.
    package let reason: String
}
