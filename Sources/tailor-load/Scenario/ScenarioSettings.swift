/// What one run of the scenario does.
struct ScenarioSettings: Sendable {
    var users: Int
    var durationSeconds: Double
    /// Messages per second, all users together.
    var rate: Double
    var readers: Int
    /// Seconds between one reader's requests.
    var readerInterval: Double
    /// Users who hold an event stream (the first ones).
    var subscribers: Int
    var seed: UInt64
    /// The fewest seconds between two "mark read" of one user.
    var markReadInterval: Double
    var requestTimeout: Double
    /// Seconds to wait after the last message for the streams to show it.
    var drainSeconds: Double
    /// Seconds of one interval of the report's series.
    var intervalSeconds: Double
    /// The server's SQLite file, for its size and its log's in the series.
    var databasePath: String?
    /// The server's process, for its CPU and memory in the series.
    var serverPID: Int32?
    /// Streams ask for JSON Patches and apply them.
    var patches = false
    /// Each message follows a typing signal of its sender's.
    var typing = false
    /// Chats each user has: the partner's, and the rest with contacts of their own.
    var chatsPerUser = 1
    /// Orders each user has before the run.
    var ordersPerUser = 1
    /// Streams follow the orders list, and with every `orderChangeEvery`th
    /// message its sender places an order and pays it.
    var changesOrders = false
    static let orderChangeEvery = 10
    /// A chat's two users speak to one server; by default they are shared
    /// out in turn, so that they speak to different ones.
    var chatsTogether = false

    /// The server (an index of the targets) `user` speaks to, of `servers`.
    func server(ofUser user: Int, servers: Int) -> Int {
        (chatsTogether ? user / 2 : user) % servers
    }
}
