import { signal } from "@preact/signals";

// The optional sound and desktop notification for a visitor's message in a conversation that is
// not open. Both are off until the agent turns them on, and the browser's permission for
// notifications is asked for only then. The choices are kept in this browser (localStorage).

const SOUND_KEY = "parley.alerts.sound";
const DESKTOP_KEY = "parley.alerts.desktop";

function stored(name: string): boolean {
  try {
    return localStorage.getItem(name) === "on";
  } catch {
    return false;
  }
}

function store(name: string, on: boolean): void {
  try {
    if (on) localStorage.setItem(name, "on");
    else localStorage.removeItem(name);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
}

/** Whether a new visitor message plays a short sound. */
export const soundOn = signal(stored(SOUND_KEY));
/** Whether a new visitor message shows a desktop notification (permission granted). */
export const desktopOn = signal(stored(DESKTOP_KEY) && typeof Notification !== "undefined" && Notification.permission === "granted");
/** Why desktop notifications could not be turned on, shown beside the switch. */
export const desktopError = signal<string | null>(null);

/** Turns the sound on or off. */
export function setSound(on: boolean): void {
  soundOn.value = on;
  store(SOUND_KEY, on);
  if (on) playChime();
}

/** Turns desktop notifications on (asking the browser's permission now, not before) or off. */
export async function setDesktop(on: boolean): Promise<void> {
  desktopError.value = null;
  if (on) {
    if (typeof Notification === "undefined") {
      desktopError.value = "This browser cannot show desktop notifications.";
      return;
    }
    const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
    if (permission !== "granted") {
      desktopError.value = "The browser did not allow notifications for this page. Allow them in the site settings, then turn this on again.";
      desktopOn.value = false;
      store(DESKTOP_KEY, false);
      return;
    }
  }
  desktopOn.value = on;
  store(DESKTOP_KEY, on);
}

/** Tells the agent of a visitor's message in a conversation that is not open, as they chose. */
export function alertVisitorMessage(conversationId: string, sessionId: string, content: string): void {
  if (soundOn.value) playChime();
  if (desktopOn.value && typeof Notification !== "undefined" && Notification.permission === "granted") {
    // The tag replaces an earlier notification of the same conversation instead of stacking them.
    const notification = new Notification(`New message from ${sessionId || "a visitor"}`, { body: content.slice(0, 160), tag: conversationId });
    notification.onclick = () => {
      window.focus();
      location.hash = `/conversations/${conversationId}`;
      notification.close();
    };
  }
}

let audio: AudioContext | undefined;

/** A short two-note chime, synthesised: no sound file to fetch. */
function playChime(): void {
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime;
    for (const [index, frequency] of [880, 1320].entries()) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.12, start + index * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.001, start + index * 0.12 + 0.25);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(start + index * 0.12);
      oscillator.stop(start + index * 0.12 + 0.25);
    }
  } catch {
    // No audio output: the notification and the marks still tell.
  }
}
