public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FileHandle {
    /// Everything up to end of file, retrying reads a signal interrupted. Foundation's
    /// `readDataToEndOfFile()` traps on `EINTR` on Linux, and the tests that run child processes
    /// get `SIGCHLD` whenever any child (theirs or another test's) exits.
    public func readAllRetryingInterrupts() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// The next bytes available (at most 64 KiB), waiting for some; empty at end of file. Retries
    /// reads a signal interrupted, where `availableData` traps.
    public func readChunkRetryingInterrupts() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno != EINTR { return [] }
        }
    }
}
