import Glibc
import TailorLoop
import Testing

/// The names of a folder's entries, read in place from the library's buffer.
struct FolderNamesTests {
    /// Short and long names, enough of them to fill the library's buffer
    /// several times over, so that entries end at its very end.
    @Test func everyNameOfAFolderIsReadWhole() throws {
        let folder = "/tmp/tailor-folder-\(getpid())"
        try #require(mkdir(folder, 0o700) == 0)
        defer { _ = rmdir(folder) }
        let made = (0..<3_000).map { index in String(repeating: "n", count: index % 200) + "\(index)" }
        for name in made {
            let file = open("\(folder)/\(name)", O_CREAT | O_WRONLY, 0o600)
            try #require(file >= 0)
            close(file)
        }
        defer { for name in made { unlink("\(folder)/\(name)") } }

        let read = try #require(FolderNames.names(in: folder))
        #expect(read.count == made.count)
        #expect(Set(read) == Set(made))
    }

    @Test func aFolderThatIsNotThereHasNoNames() {
        #expect(FolderNames.names(in: "/tmp/tailor-no-such-folder-\(getpid())") == nil)
    }
}
