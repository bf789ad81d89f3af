/** A window whose live `message` listeners can be counted (no DOM library in unit tests). */
export class MessageCountingWindow extends EventTarget {
  messageListeners = new Set<unknown>();
  override addEventListener(type: string, listener: EventListener) {
    if (type === 'message') this.messageListeners.add(listener);
    super.addEventListener(type, listener);
  }
  override removeEventListener(type: string, listener: EventListener) {
    if (type === 'message') this.messageListeners.delete(listener);
    super.removeEventListener(type, listener);
  }
}
