// swift-tools-version:6.0
import PackageDescription

// The targets follow the event path of docs/DESIGN.md, lowest layer first; a layer
// never imports one above it.
let package = Package(
    name: "Tailor",
    products: [
        .executable(name: "tailor", targets: ["tailor"]),
        .executable(name: "tailor-load", targets: ["tailor-load"]),
        // For apps: typed view models that stay live, resume, and load from disk.
        .library(name: "TailorClient", targets: ["TailorClient"]),
        .executable(name: "tailor-chat", targets: ["tailor-chat"]),
        // Preloaded into a server by the allocation budget tests; never linked into it.
        .library(name: "TailorAllocationCounter", type: .dynamic, targets: ["CAllocationCounter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Metrics through the ecosystem's API, exported in Prometheus's text format;
        // neither pulls in NIO or Foundation.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Web Push's P-256 keys, ECDH, HKDF, AES-GCM and ES256 signatures; on
        // Linux it needs FoundationEssentials only.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The server's long-lived parts run as one group of services, whose
        // graceful shutdown stops them in order; it needs no NIO.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries and the few Linux calls Glibc does not import cleanly.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CLibCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CNats",
            pkgConfig: "libnats",
            providers: [.apt(["libnats-dev"])]
        ),
        .target(name: "CSystem"),
        // A SQLite VFS that writes a commit's log frames in one call.
        .target(name: "CSQLiteLogWrites", dependencies: ["CSQLite"]),
        .target(name: "CAllocationCounter"),
        // Files of the repository the server serves as they are (the OpenAPI document), built in.
        .target(name: "CEmbeddedFiles", cSettings: [.unsafeFlags(["-std=c23"])]),

        // The socket loop: epoll threads that are also the executors of their connections.
        .target(name: "TailorLoop", dependencies: ["CSystem"]),

        // HTTP/1.1 on the loop: parser, router, responses, static files, gzip.
        .target(
            name: "TailorHTTP",
            dependencies: [
                "TailorLoop",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The model on SQLite or PostgreSQL: connections, statements, schemas, and the queries.
        .target(name: "TailorStore", dependencies: ["CSQLite", "CSQLiteLogWrites", "CLibPQ", "TailorLoop"]),

        // The domain: the events raised, their outcomes, and the changes the feed carries.
        .target(name: "TailorDomain", dependencies: ["TailorStore"]),

        // The read model: the kept chats, builders, view models, their JSON and patches, the view cache.
        .target(name: "TailorViews", dependencies: ["TailorDomain", "TailorStore", "TailorHTTP", "TailorLoop", "TailorWire"]),

        // The event streams: subscribers and their queues, the lanes, resume, patches between versions, slow readers.
        .target(
            name: "TailorStreams",
            dependencies: ["TailorDomain", "TailorViews", "TailorStore", "TailorHTTP", "TailorLoop", "TailorWire", .product(name: "Logging", package: "swift-log")]
        ),

        // The change feed on this server: its entries' encoding, and the followers
        // that apply it in position order (the writer's own commits on SQLite,
        // every server's on PostgreSQL), with how far it is applied.
        .target(
            name: "TailorFeed",
            dependencies: ["TailorDomain", "TailorStore", "TailorLoop", "TailorHTTP", "TailorViews", "TailorWire",
                           .product(name: "Logging", package: "swift-log")]
        ),

        // The message bus between servers (NATS, through its C client): a
        // wake-up for the feed's followers that may lose messages.
        .target(name: "TailorBus", dependencies: ["CNats", "TailorLoop", .product(name: "Logging", package: "swift-log")]),

        // Presence across servers: who is online and who types, told to the
        // views as changes and to the other servers as PostgreSQL notifications.
        .target(
            name: "TailorPresence",
            dependencies: ["TailorStore", "TailorLoop", "TailorHTTP", "TailorViews", "TailorStreams",
                           .product(name: "Logging", package: "swift-log")]
        ),

        // Web Push: payload encryption, the server's key and its tokens (JSON
        // written by the read model's writer), endpoints, and the HTTPS client
        // that posts pushes to push services.
        .target(
            name: "TailorPush",
            dependencies: ["CLibCurl", "TailorLoop", "TailorViews", .product(name: "Crypto", package: "swift-crypto")]
        ),

        // The application: the router and writer, the feed's followers, accounts, routes, operations, the wiring.
        .target(
            name: "TailorApp",
            dependencies: [
                "CLibCrypto",
                "CEmbeddedFiles",
                "TailorLoop",
                "TailorHTTP",
                "TailorStore",
                "TailorDomain",
                "TailorViews",
                "TailorStreams",
                "TailorFeed",
                "TailorPresence",
                "TailorPush",
                "TailorBus",
                "TailorWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The `tailor` command: flags, signals, start and stop.
        .executableTarget(
            name: "tailor",
            dependencies: [
                "TailorApp",
                "TailorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `tailor-load`: drives a running server over loopback on the same socket loop.
        .executableTarget(
            name: "tailor-load",
            dependencies: [
                "TailorLoop",
                "TailorWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // The wire format as Swift reads and writes it: topics' names, the event-stream reader,
        // applying JSON Patches. The server, the client and the load tool share it. No dependencies.
        .target(name: "TailorWire"),

        // The client for apps: Foundation's URLSession only, nothing of the server's.
        .target(name: "TailorClient", dependencies: ["TailorWire"]),

        // `tailor-chat`: a small terminal chat on the client's public API.
        .executableTarget(name: "tailor-chat", dependencies: ["TailorClient"]),

        .testTarget(name: "TailorClientTests", dependencies: ["TailorClient", "TailorWire"]),
        .testTarget(name: "TailorLoopTests", dependencies: ["TailorLoop", "TailorTestSupport"]),
        .testTarget(name: "TailorHTTPTests", dependencies: ["TailorHTTP", .product(name: "Logging", package: "swift-log")]),
        // Fresh databases on either engine, and thread names, for the tests.
        .target(name: "TailorTestSupport", dependencies: ["TailorStore"], path: "Tests/TailorTestSupport"),
        .testTarget(name: "TailorStoreTests", dependencies: ["TailorStore", "TailorTestSupport"]),
        .testTarget(name: "TailorViewsTests", dependencies: ["TailorViews", "TailorDomain", "TailorStore", "TailorLoop", "TailorTestSupport"]),
        .testTarget(name: "TailorStreamsTests", dependencies: ["TailorStreams", "TailorViews", "TailorDomain", "TailorStore", "TailorLoop", "TailorTestSupport"]),
        .testTarget(name: "TailorFeedTests", dependencies: ["TailorFeed", "TailorDomain", "TailorViews", "TailorStore", "TailorLoop", "TailorTestSupport"]),
        .testTarget(name: "TailorAppTests", dependencies: ["TailorApp", "TailorPresence", "TailorDomain", "TailorViews", "TailorStreams", "TailorStore", "TailorTestSupport"]),
        .testTarget(name: "TailorServerTests", dependencies: ["TailorClient", "TailorApp", "TailorDomain", "TailorFeed", "TailorViews", "TailorStreams", "TailorHTTP", "TailorLoop", "TailorStore", "TailorBus", "TailorTestSupport"]),
    ]
)

// Settings every Swift target shares, set once.
for target in package.targets where target.type != .system {
    guard !["CSystem", "CSQLiteLogWrites", "CAllocationCounter"].contains(target.name) else { continue }
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        // An async function runs where its caller runs (a loop's task stays on
        // its loop) without asking the runtime at each call which executor
        // the task prefers: that lookup took a lock, a few percent of a
        // cached GET.
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    ]
    // An app's package can depend on the client only if it has no unsafe
    // flags: scripts/test type-checks it with warnings as errors instead.
    guard !["TailorClient", "tailor-chat"].contains(target.name) else { continue }
    target.swiftSettings! += [.unsafeFlags(["-warnings-as-errors"], .when(configuration: .debug))]
}
