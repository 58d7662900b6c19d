// A topic names one view model: "chats", "badge", "orders" (the default
// view of the orders list), "chat:ID" and "order:ID". The stream, the store
// and the tabs all speak of view models by topic.

/** The event names of whole view models; a patch's is the same with ".patch". */
export const viewModelNames = ["chats", "chat", "badge", "orders", "order"];

/** The kind of a topic: its name without the id. */
export function kindOf(topic) {
  return topic.split(":")[0];
}

/** Where a topic's view model is read. */
export function pathOf(topic) {
  const [kind, id] = topic.split(":");
  if (!viewModelNames.includes(kind) || (id === undefined) !== (kind !== "chat" && kind !== "order")) {
    throw new Error(`not a topic: ${topic}`);
  }
  return id === undefined ? `/api/${kind}` : `/api/${kind}s/${encodeURIComponent(id)}`;
}

/** The topic a whole view model of the event `name` belongs to. */
export function topicOf(name, viewModel) {
  return name === "chat" || name === "order" ? `${name}:${viewModel.id}` : name;
}
