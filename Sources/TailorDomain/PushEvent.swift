import TailorStore

/// Web Push bookkeeping: `Event.push`. Subscriptions come from users; the
/// rest from the delivery of pushes, which writes through the one writer like
/// everything else.
public enum PushEvent: Sendable {
    /// `user`'s browser (in `session`, when signed in with one) subscribes;
    /// at most `limit` subscriptions per user.
    case subscribe(user: Int, session: Int?, endpoint: String, p256dh: [UInt8], auth: [UInt8], limit: Int)
    case unsubscribe(user: Int, endpoint: String)
    /// Takes up to `limit` due pushes for `lease` milliseconds.
    case claim(limit: Int, lease: Int)
    /// The push service took the push, or it is given up.
    case finished(push: Int)
    /// The push is tried again at `due`.
    case retry(push: Int, due: Int)
    /// The push service no longer knows the subscription.
    case subscriptionGone(subscription: Int)
    /// The recipient saw the message on a stream: its pushes are not sent.
    case cancel(message: Int)
}
