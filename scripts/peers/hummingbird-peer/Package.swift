// swift-tools-version:6.0
import PackageDescription

// The peer the benchmark measures Tailor against: Hummingbird 2 answering the
// same routes with the same bytes. A package of its own, so Tailor's build never
// pulls in SwiftNIO.
let package = Package(
    name: "HummingbirdPeer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdPeer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)
