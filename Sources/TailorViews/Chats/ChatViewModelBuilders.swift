import TailorStore

/// Builds a page of the chat list: newest activity first, with each chat's last
/// message, its date text and the unread count; the total unread over all chats.
package struct ChatListViewModelBuilder {
    package let dates: DateText
    package let presence: Presence

    /// Characters of a last message a list shows: a list item is a preview,
    /// and a list of long messages would otherwise weigh megabytes.
    package static let previewLength = 200

    package static func preview(_ text: String) -> String {
        text.utf8.count <= previewLength || text.count <= previewLength ? text : String(text.prefix(previewLength - 1)) + "…"
    }

    /// `summaries` is the page's chats, newest activity first, with what the whole list counts.
    /// `summaries` holds every chat of the page (none unchanged).
    package func build(_ summaries: ChatSummaryPage, page: ChatListPage, now: Int) -> ChatListViewModel<[ChatListItemViewModel]> {
        list(summaries.summaries.map { item(for: $0, status: status(of: $0, now: now), now: now) }, of: summaries, page: page)
    }

    /// The same list written from `written`, the rows of `viewer`'s page as
    /// last written (`ChatListRows`): a row whose chat, contact status and day
    /// are as they were is copied, the others are built and written; the
    /// page's rows are kept in `rows` for the next build.
    package func build(_ summaries: ChatSummaryPage, page: ChatListPage, now: Int, viewer: Int,
                       written before: [Int: ChatListRows.Row], rows: ChatListRows) -> ChatListViewModel<ChatListRowList> {
        let day = now + dates.millisecondsUntilMidnight(now: now)
        var written = ChatListRowList(capacity: summaries.items.count)
        var after: [Int: ChatListRows.Row] = [:]
        after.reserveCapacity(summaries.items.count)
        for entry in summaries.items {
            let row: ChatListRows.Row
            switch entry {
            case .unchanged(let kept):
                // Its chat is as the row was written from: only the status and the day may differ.
                // (Asked by its fields: most rows are unchanged, and a summary is too large to copy for them.)
                let status = presence.status(of: kept.summary.contact, in: kept.summary.chatID, shown: kept.summary.showsContactPresence,
                                             dates: dates, now: now)
                row = kept.status == status && kept.day == day ? kept : self.row(kept.summary, stamp: kept.stamp, status: status, day: day, now: now)
            case .summary(let summary, let stamp):
                let status = status(of: summary, now: now)
                if let kept = before[summary.chatID], kept.shows(summary, status, day: day) {
                    row = kept.stamped(stamp)
                } else {
                    row = self.row(summary, stamp: stamp, status: status, day: day, now: now)
                }
            }
            written.append(row)
            after[entry.chatID] = row
        }
        rows.keep(after, of: ChatListRows.Page(viewer: viewer, offset: page.offset))
        return list(written, of: summaries, page: page)
    }

    /// A row written anew.
    private func row(_ summary: ChatSummary, stamp: Int?, status: ContactStatusViewModel?, day: Int, now: Int) -> ChatListRows.Row {
        let (bytes, layout) = JSONWriter.bytesAndLayout(of: item(for: summary, status: status, now: now))
        return ChatListRows.Row(summary: summary, stamp: stamp, status: status, day: day, bytes: bytes, written: JSONLayout.Written(layout))
    }

    private func status(of summary: ChatSummary, now: Int) -> ContactStatusViewModel? {
        presence.status(of: summary.contact, in: summary.chatID, shown: summary.showsContactPresence, dates: dates, now: now)
    }

    private func item(for summary: ChatSummary, status: ContactStatusViewModel?, now: Int) -> ChatListItemViewModel {
        ChatListItemViewModel(
            id: String(summary.chatID),
            contact: summary.contact.name,
            contactStatus: status,
            message: summary.lastMessage.map { Self.preview($0.text) } ?? "",
            lastMessageDate: summary.lastMessage.map { dates.text($0.sentAt, now: now) } ?? "",
            lastMessageAt: summary.lastMessage.map { DateText.iso($0.sentAt) },
            unreadMessageCount: summary.unreadCount,
            open: .get("/api/chats/\(summary.chatID)"))
    }

    private func list<Items>(_ items: Items, of summaries: ChatSummaryPage, page: ChatListPage) -> ChatListViewModel<Items> {
        let end = page.offset + summaries.items.count
        return ChatListViewModel(
            title: "Chats",
            unreadTotal: summaries.unreadTotal,
            items: items,
            next: end < summaries.total ? .get(page.href(offset: end)) : nil,
            actions: .init(addChat: .post("/api/chats")))
    }
}

/// Builds one chat's screen for one of its two users. The latest page takes
/// what it can from the screen's previous list in `pages`, which every build
/// may share, and `load`s only the messages it has to write: the new ones.
package struct ChatViewModelBuilder {
    package let dates: DateText

    package var pages: MessagePages

    package init(dates: DateText, pages: MessagePages = MessagePages()) {
        self.dates = dates
        self.pages = pages
    }

    /// Bytes of message JSON one page holds at most, whatever its limit.
    package static let maxPageBytes = 512 * 1024

    package func build<Failure: Error>(chat: Chat, viewer: User, contact: User, contactStatus: ContactStatusViewModel?, blocked: Bool,
                                       page: MessagePageOutline, request: MessagePageRequest, unread: Int,
                                       load: (Int) throws(Failure) -> Message?) throws(Failure) -> ChatViewModel {
        let screen = MessagePages.Screen(chat: chat.id, viewer: viewer.id)
        let previous = request == .latest ? pages.latest(of: screen) : nil
        var messages = MessageList(capacity: page.states.count)
        var reusable = previous?.entries[...] ?? []
        for state in page.states {
            // Both lists are in id order, so one pass finds every message kept.
            while let first = reusable.first, first.id < state.id { reusable.removeFirst() }
            if let previous, let kept = reusable.first, kept.id == state.id {
                messages.append(kept, of: previous, read: state.isRead)
            } else if let message = try load(state.id) {
                messages.append(id: state.id, self.message(for: message, viewer: viewer, contact: contact))
            }
        }
        var hasEarlier = page.hasEarlier
        if messages.bytes.count > Self.maxPageBytes {
            // Long messages: the page holds the newest that fit, and `earlier`
            // leads to the rest, so that no chat view model grows past the cap.
            messages = messages.newest(fitting: Self.maxPageBytes)
            hasEarlier = true
        }
        if request == .latest { pages.keep(messages, for: screen) }
        let earlier: ActionViewModel? = hasEarlier ? messages.entries.first.map { first in
            .get("/api/chats/\(chat.id)?before=\(first.id)" + (request.limit == MessagePageRequest.latest.limit ? "" : "&limit=\(request.limit)"))
        } : nil
        return ChatViewModel(
            id: String(chat.id),
            title: contact.name,
            contactStatus: contactStatus,
            blocked: blocked,
            unreadMessageCount: unread,
            messages: messages,
            earlier: earlier,
            actions: .init(send: .post("/api/chats/\(chat.id)/messages"), markRead: .post("/api/chats/\(chat.id)/read"),
                           typing: .post("/api/chats/\(chat.id)/typing"),
                           block: blocked ? nil : .post("/api/chats/\(chat.id)/block"),
                           unblock: blocked ? .delete("/api/chats/\(chat.id)/block") : nil))
    }

    package func message(for message: Message, viewer: User, contact: User) -> MessageViewModel {
        let mine = message.senderID == viewer.id
        return MessageViewModel(
            id: String(message.id),
            text: message.text,
            sender: mine ? "me" : "other",
            senderName: mine ? viewer.name : contact.name,
            state: message.isRead ? "read" : "sent",
            time: dates.time(message.sentAt),
            sentAt: DateText.iso(message.sentAt))
    }
}
