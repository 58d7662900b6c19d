// Shows a push as a notification, and opens (or focuses) the chat it tells
// of when the notification is clicked. A push's data is the server's
// notification view model: {"chatId", "contact", "text", "open"}.

self.addEventListener("push", (event) => {
  let notification;
  try {
    notification = event.data.json();
  } catch {
    return;
  }
  event.waitUntil(self.registration.showNotification(notification.contact, {
    body: notification.text,
    // A newer message of the chat replaces the one not yet seen.
    tag: `chat-${notification.chatId}`,
    data: { chatId: notification.chatId },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const chatId = event.notification.data.chatId;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const page = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (page) {
      page.postMessage({ openChat: chatId });
      return page.focus();
    }
    return self.clients.openWindow(`/#/chats/${chatId}`);
  })());
});
