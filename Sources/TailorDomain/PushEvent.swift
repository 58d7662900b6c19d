import TailorStore

/// Web Push bookkeeping: `Event.push`. Subscriptions come from users; the
/// rest from the delivery of pushes, which writes through the one writer like
/// everything else.
public enum PushEvent: Sendable {
    /// `user`'s browser (in `session`, when signed in with one) subscribes;
    /// at most `limit` subscriptions per user.
    case subscribe(user: Int, session: Int?, endpoint: String, p256dh: [UInt8], auth: [UInt8], limit: Int)
    case unsubscribe(user: Int, endpoint: String)
    /// Takes up to `limit` due pushes for `lease` milliseconds, none to a
    /// subscription in `busy`, after dropping what is past `maxPending` per
    /// subscription (see `Store.claimPushes`).
    case claim(limit: Int, lease: Int, busy: Set<Int>, maxPending: Int)
    /// The push service took the push: the subscription works.
    case delivered(push: Int, subscription: Int)
    /// The push is given up.
    case finished(push: Int)
    /// A claimed push not sent now: due again at `due`, its attempt not counted.
    case release(push: Int, due: Int)
    /// A push to `subscription` failed; past `dropAfter` milliseconds of
    /// failures the subscription is removed.
    case failing(subscription: Int, dropAfter: Int)
    /// The push is tried again at `due`.
    case retry(push: Int, due: Int)
    /// The push service no longer knows the subscription.
    case subscriptionGone(subscription: Int)
    /// The recipient saw the message on a stream: its pushes are not sent.
    case cancel(message: Int)
}
