import TailorHTTP
import TailorLoop
import Testing

/// `--trust-proxy` takes addresses and blocks of them, IPv4 and IPv6.
@Suite struct AddressRangeTests {
    private func address(_ text: String) -> PeerAddress { PeerAddress(text: text)! }

    @Test func anIPv4BlockHoldsItsAddressesAndNoOthers() throws {
        let block = try #require(AddressRange(text: "10.0.0.0/8"))
        #expect(block.contains(address("10.0.0.1")))
        #expect(block.contains(address("10.255.255.255")))
        #expect(!block.contains(address("11.0.0.1")))
        #expect(!block.contains(address("::a00:1")), "an IPv6 address whose last bits spell 10.0.0.1 is not in it")
        // Host bits given are cleared: the block is the same.
        #expect(AddressRange(text: "10.1.2.3/8") == block)
        #expect(try #require(AddressRange(text: "192.168.4.0/22")).contains(address("192.168.7.255")))
        #expect(try !#require(AddressRange(text: "192.168.4.0/22")).contains(address("192.168.8.0")))
    }

    @Test func anIPv6BlockHoldsItsAddresses() throws {
        let block = try #require(AddressRange(text: "fd00::/8"))
        #expect(block.contains(address("fd12:3456::1")))
        #expect(!block.contains(address("fe80::1")))
        let wide = try #require(AddressRange(text: "2001:db8::/100"))
        #expect(wide.contains(address("2001:db8::fff:ffff")))
        #expect(!wide.contains(address("2001:db8::1000:0")))
    }

    @Test func oneAddressAndTheWholeSpaceAreBlocksToo() throws {
        let one = try #require(AddressRange(text: "127.0.0.1"))
        #expect(one.contains(address("127.0.0.1")))
        #expect(!one.contains(address("127.0.0.2")))
        #expect(try #require(AddressRange(text: "0.0.0.0/0")).contains(address("203.0.113.9")))
        #expect(try #require(AddressRange(text: "::/0")).contains(address("2001:db8::1")))
    }

    @Test(arguments: ["", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "fd00::/129", "10.0.0.0/8/8", "example.com", "10.0.0/8"])
    func whatIsNoBlockIsRefused(_ text: String) {
        #expect(AddressRange(text: text) == nil)
    }
}
