import Dispatch
import Logging
import ServiceLifecycle
import TailorLoop

/// The server's parts run as one `ServiceGroup`, on a thread of their own
/// (`lifecycle`): their starts and stops may block it (the loops' end, the
/// writer's last commit) and hold up nothing else, and the callers of
/// `start` and `shutdown` — a command's main thread, a test — may wait for
/// them from any thread, the cooperative pool's included: nothing of the
/// group's needs that pool.
final class Lifecycle: Sendable {
    private let group: ServiceGroup
    private let startup: Startup
    private let thread = SerialThread(name: "lifecycle")
    private let ended = DispatchSemaphore(value: 0)
    private let logger: Logger

    /// `parts` in the order they depend on each other: each stops after every
    /// part listed after it.
    init(parts: [Part], logger: Logger) {
        startup = Startup(parts: parts.map(\.name))
        let services = parts.map { [startup] part in
            ServiceGroupConfiguration.ServiceConfiguration(service: PartService(part: part, startup: startup),
                                                           successTerminationBehavior: .gracefullyShutdownGroup,
                                                           failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
        self.logger = logger
    }

    /// Runs the group; returns once every part has started, or throws the
    /// first failure, once the parts that had started have stopped again.
    func start() throws {
        precondition(startup.begin(), "the server's parts were started twice")
        let (group, ended, logger) = (group, ended, logger)
        Task(executorPreference: thread) {
            do {
                try await group.run()
            } catch {
                logger.error("the server's parts stopped on a failure: \(error)")
            }
            ended.signal()
        }
        do {
            try startup.wait()
        } catch {
            ended.wait()
            throw error
        }
    }

    /// Shuts the group down gracefully and waits until every part has stopped.
    func shutdown() {
        guard startup.end() else { return }
        let group = group
        Task(executorPreference: thread) { await group.triggerGracefulShutdown() }
        ended.wait()
    }
}

/// A part as a service of the group: started when the group runs, stopped
/// at its graceful shutdown, which stops the services in the reverse of the
/// order they are listed in, each once the one after it has stopped.
private struct PartService: Service {
    let part: Part
    let startup: Startup

    func run() async throws {
        let stop: Part.Stop
        do {
            stop = try part.start()
        } catch {
            startup.failed(part.name, error)
            throw error
        }
        startup.started(part.name)
        // Not `gracefulShutdown()`, which is woken by a task on the shared
        // pool: the callers of `Application.shutdown` may block every thread
        // of it (tests do). The handler is called on the thread that shuts
        // the group down, and the wait also ends if the group is cancelled.
        let (shutdown, shuttingDown) = AsyncStream.makeStream(of: Void.self)
        await withGracefulShutdownHandler {
            for await _ in shutdown {}
        } onGracefulShutdown: {
            shuttingDown.finish()
        }
        stop()
    }
}
