/**
 * The two browser APIs Capacitor's web implementations call: the Notification constructor
 * (`@capacitor/local-notifications`) and `document.visibilitychange` (`@capacitor/app`). Node has
 * neither, so these stand in for the browser; the Capacitor code that uses them is the real one.
 */
export class RecordingNotification extends EventTarget {
  static permission: NotificationPermission = 'default';
  /** What `requestPermission` answers (the person's choice in the prompt). */
  static answer: NotificationPermission = 'granted';
  static requests = 0;
  /** Notifications a browser would have displayed: made while permission was granted. */
  static shown: RecordingNotification[] = [];
  readonly tag: string;
  readonly body: string;
  closed = false;

  constructor(
    readonly title: string,
    options: NotificationOptions = {},
  ) {
    super();
    this.tag = options.tag ?? '';
    this.body = options.body ?? '';
    // Capacitor probes support with `new Notification('')` before permission is granted; a browser
    // shows nothing then.
    if (RecordingNotification.permission === 'granted') RecordingNotification.shown.push(this);
  }

  static async requestPermission(): Promise<NotificationPermission> {
    RecordingNotification.requests += 1;
    RecordingNotification.permission = RecordingNotification.answer;
    return RecordingNotification.permission;
  }

  static reset(permission: NotificationPermission, answer: NotificationPermission = 'granted'): void {
    RecordingNotification.permission = permission;
    RecordingNotification.answer = answer;
    RecordingNotification.requests = 0;
    RecordingNotification.shown = [];
  }

  close(): void {
    this.closed = true;
    this.dispatchEvent(new Event('close'));
  }
}

/** A document that can be hidden and shown again, like a phone app going to the background. */
export class VisibleDocument extends EventTarget {
  hidden = false;

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

export const testDocument = new VisibleDocument();

/** Installs the stand-ins as globals (once per test file, before the plugins are first used). */
export function installBrowserGlobals(): void {
  const g = globalThis as Record<string, unknown>;
  g.Notification = RecordingNotification;
  g.window = { Notification: RecordingNotification };
  g.document = testDocument;
}
