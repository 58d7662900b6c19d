import Logging
import TailorDomain
import TailorLoop
import TailorPush
import TailorStore
import TailorStreams
import TailorViews

/// Sends the pushes queued in the outbox (see `Store+Push`): each message to a
/// user with no stream showing its chat becomes a push to every subscription
/// of theirs, encrypted for that browser (`PushEncryption`) and signed with
/// the server's key (`VAPIDKey`), posted by the `push` thread (`PushClient`).
///
/// Its scheduling is a task on a loop's executor, as the chatbot's is: a
/// few awaits per batch. Making a push (its encryption) and posting it run
/// on the `push` thread.
///
/// It wakes when the feed says pushes were queued (`FeedNews`; on any server: every one
/// delivers, and the outbox's leases give each push to one), waits the push
/// delay for a stream that shows the chat to cancel it, then claims what is
/// due. It also looks every `pollInterval`, for pushes whose server died with
/// their lease, and for retries, and again whenever a push in flight is done.
///
/// Fair and bounded (see `PushesInFlight` and `Store.claimPushes`): users take
/// turns in a claim; one push at a time goes to a subscription, at most
/// `inFlightPerHost` to a push service, at most `inFlight` in all; each is
/// settled the moment its own push service answers. So a push service that
/// hangs holds only its own subscriptions' pushes, each for the timeout. A
/// service that asks to wait (429, 5xx) gets the push again after
/// `Retry-After` or a doubling pause; one that no longer knows the
/// subscription (404, 410) has it removed, and so does one that keeps failing
/// past `dropFailingAfter`.
final class PushDelivery: Sendable {
    private let waker: AsyncStream<Void>.Continuation
    /// Delivers what is due whenever woken.
    private let worker: Task<Void, Never>
    /// Wakes the worker every `pollInterval`.
    private let ticker: Task<Void, Never>
    /// Follows the pushes the feed says were queued.
    private let follower: Task<Void, Never>

    /// Seconds between looks at the outbox when nothing wakes it.
    static let pollInterval = 5.0
    /// Milliseconds a claimed push is its server's; past it another takes it.
    static let lease = 60_000
    /// Milliseconds before a push held back for its busy push service is due again.
    static let heldBack = 1_000

    init(events: EventRouter, streams: EventStreams, queued: AsyncStream<FeedNews.PushesQueued>, key: VAPIDKey, settings: PushSettings,
         metrics: ServerMetrics, now: @escaping @Sendable () -> Int, loop: EventLoop, logger: Logger) {
        let client = PushClient(caFile: settings.caFile, timeoutSeconds: settings.timeout)
        let (wakes, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.waker = waker
        let delay = settings.delay
        worker = Task(executorPreference: loop) {
            let delivery = Round(events: events, client: client, key: key, settings: settings, metrics: metrics, logger: logger, now: now,
                                 loop: loop, wake: { waker.yield() })
            for await _ in wakes {
                do {
                    try await loop.sleep(for: .milliseconds(delay))
                } catch {
                    return  // cancelled: the server is stopping
                }
                await delivery.deliverDue()
            }
        }
        ticker = Task(executorPreference: loop) {
            while true {
                do {
                    try await loop.sleep(for: .seconds(Self.pollInterval))
                } catch {
                    return  // cancelled: the server is stopping
                }
                waker.yield()
            }
        }
        follower = Task(executorPreference: loop) {
            for await pushes in queued {
                await Self.queued(pushes, streams: streams, events: events, wake: { waker.yield() }, loop: loop, logger: logger)
            }
        }
    }

    /// Pushes were queued for their recipient: cancelled when one of their
    /// streams here shows the chat, else delivered once due.
    private static func queued(_ pushes: FeedNews.PushesQueued, streams: EventStreams, events: EventRouter, wake: () -> Void,
                               loop: EventLoop, logger: Logger) async {
        guard await streams.isShowing(chat: pushes.chat, to: pushes.recipient) else {
            wake()
            return
        }
        Task(executorPreference: loop) {
            do {
                try await events.record(.cancel(message: pushes.message))
            } catch {
                logger.warning("the pushes of message \(pushes.message), shown on a stream, could not be cancelled: \(error)")
            }
        }
    }

    func stop() {
        follower.cancel()
        ticker.cancel()
        worker.cancel()
        waker.finish()
    }

    /// One look at the outbox: claims what has room and sends each push on
    /// its own; a push done wakes the next look.
    private final class Round: Sendable {
        let events: EventRouter
        let client: PushClient
        let key: VAPIDKey
        let settings: PushSettings
        let metrics: ServerMetrics
        let logger: Logger
        let now: @Sendable () -> Int
        let loop: EventLoop
        /// The pushes in flight: touched only on the loop, where every task of
        /// the delivery runs, so they need no lock.
        private let inFlight = ThreadConfined(PushesInFlight())
        let wake: @Sendable () -> Void

        init(events: EventRouter, client: PushClient, key: VAPIDKey, settings: PushSettings, metrics: ServerMetrics, logger: Logger,
             now: @escaping @Sendable () -> Int, loop: EventLoop, wake: @escaping @Sendable () -> Void) {
            self.events = events
            self.client = client
            self.key = key
            self.settings = settings
            self.metrics = metrics
            self.logger = logger
            self.now = now
            self.loop = loop
            self.wake = wake
        }

        func deliverDue() async {
            let (room, busy) = inFlight.withValue { (settings.inFlight - $0.count, $0.subscriptions) }
            guard room > 0, !Task.isCancelled else { return }
            let claim: PushClaim
            do {
                claim = try await events.claimPushes(limit: room, lease: PushDelivery.lease, busy: busy,
                                                     maxPending: settings.pendingPerSubscription)
            } catch {
                logger.warning("pushes could not be claimed: \(error)")
                return
            }
            metrics.pushesDropped(claim.replaced, reason: "replaced")
            metrics.pushesDropped(claim.dropped, reason: "over_limit")
            if claim.dropped > 0 {
                logger.notice("\(claim.dropped) pending pushes dropped: past \(settings.pendingPerSubscription) waiting for one subscription")
            }
            let endpoints = claim.jobs.map { job in Result { try PushEndpoint(job.subscription.endpoint, allowedHosts: settings.hosts) } }
            // An endpoint that cannot be used counts under no host: its push is unmade at once.
            let hosts = endpoints.map { endpoint in
                switch endpoint {
                case .success(let endpoint): endpoint.host
                case .failure: ""
                }
            }
            let candidates = zip(claim.jobs, hosts).map { job, host in
                PushesInFlight.Candidate(subscription: job.subscription.id, user: job.subscription.userID, host: host)
            }
            let admitted = inFlight.withValue { $0.admit(candidates, settings: settings) }
            for (index, job) in claim.jobs.enumerated() {
                let (endpoint, host) = (endpoints[index], hosts[index])
                guard admitted[index] else {
                    // Its push service has as many in flight as it may: later, uncounted.
                    await record(.release(push: job.id, due: now() + PushDelivery.heldBack))
                    continue
                }
                Task(executorPreference: loop) { [self] in
                    let response = await client.send { try self.request(for: job, to: endpoint.get()) }
                    await settle(job, response)
                    inFlight.withValue { $0.leave(subscription: job.subscription.id, host: host) }
                    wake()
                }
            }
        }

        private func request(for job: PushJob, to endpoint: PushEndpoint) throws -> PushRequest {
            let payload = ViewModelEncoding.json(NotificationViewModel(chatID: job.message.chatID, contact: job.senderName,
                                                                       text: job.message.text))
            let body = try PushEncryption.encrypt(payload, p256dh: job.subscription.p256dh, auth: job.subscription.auth)
            let expiry = now() / 1000 + 12 * 3600
            return PushRequest(url: endpoint.url, fields: [
                "Authorization: " + (try key.authorization(audience: endpoint.origin, subject: settings.subject, expiry: expiry)),
                "Content-Encoding: aes128gcm",
                "Content-Type: application/octet-stream",
                "TTL: \(settings.timeToLive)",
                "Urgency: high",
                // A newer push of the same chat replaces one not yet shown.
                "Topic: chat-\(job.message.chatID)",
            ], body: body)
        }

        private func settle(_ job: PushJob, _ response: PushResponse) async {
            switch response {
            case .answered(let status, _) where (200..<300).contains(status):
                metrics.pushSent(result: "delivered")
                await record(.delivered(push: job.id, subscription: job.subscription.id))
            case .answered(let status, _) where status == 404 || status == 410:
                logger.notice("subscription \(job.subscription.id) is gone from its push service (\(status)): removed")
                metrics.pushSent(result: "gone")
                await record(.subscriptionGone(subscription: job.subscription.id))
            case .answered(let status, let retryAfter) where status == 429 || status >= 500:
                logger.warning("push \(job.id) was not taken (\(status)), attempt \(job.attempts + 1)")
                metrics.pushSent(result: "retried")
                await retry(job, after: retryAfter)
            case .answered(let status, _):
                logger.warning("push \(job.id) was refused (\(status)): given up")
                metrics.pushSent(result: "refused")
                await record(.finished(push: job.id))
            case .unmade(let reason):
                // A subscription whose key or endpoint cannot be used never will be.
                logger.warning("push \(job.id) to subscription \(job.subscription.id) cannot be made (\(reason)): the subscription is removed")
                metrics.pushSent(result: "unusable")
                await record(.subscriptionGone(subscription: job.subscription.id))
            case .failed(let reason):
                logger.warning("push \(job.id) got no answer (\(reason)), attempt \(job.attempts + 1)")
                metrics.pushSent(result: "failed")
                await retry(job, after: nil)
            }
        }

        /// Again after `retryAfter` seconds, else 2, 4, 8… seconds; given up
        /// after the last attempt. A subscription failing for too long goes.
        private func retry(_ job: PushJob, after retryAfter: Int?) async {
            do {
                if try await events.recordFailing(subscription: job.subscription.id, dropAfter: Int(settings.dropFailingAfter * 1000)) {
                    logger.notice("subscription \(job.subscription.id) failed for over \(Int(settings.dropFailingAfter)) s: removed")
                    metrics.pushSent(result: "failing_removed")
                    return
                }
            } catch {
                logger.warning("a failing push subscription could not be recorded: \(error)")
            }
            guard job.attempts + 1 < settings.attempts else {
                logger.warning("push \(job.id) given up after \(settings.attempts) attempts")
                await record(.finished(push: job.id))
                return
            }
            let seconds = retryAfter.map { min(max($0, 1), 3600) } ?? (2 << min(job.attempts, 10))
            await record(.retry(push: job.id, due: now() + seconds * 1000))
        }

        private func record(_ event: PushEvent) async {
            do {
                try await events.record(event)
            } catch {
                // The lease runs out and the push is tried again.
                logger.warning("a push's delivery could not be recorded: \(error)")
            }
        }
    }
}
