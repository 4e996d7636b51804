import { desktopError, desktopOn, setDesktop, setSound, soundOn } from "./alerts.js";

/** The agent's switches for a sound and a desktop notification when a visitor writes elsewhere. */
export function AlertSwitches() {
  return (
    <fieldset class="alerts">
      <legend>When a visitor writes in another conversation</legend>
      <label class="switch">
        <input type="checkbox" checked={soundOn.value} onChange={(event) => setSound(event.currentTarget.checked)} />
        Play a sound
      </label>
      <label class="switch">
        <input type="checkbox" checked={desktopOn.value} onChange={(event) => void setDesktop(event.currentTarget.checked)} aria-describedby="desktop-error" />
        Show a desktop notification
      </label>
      {desktopError.value ? (
        <p class="error" id="desktop-error" role="alert">
          {desktopError.value}
        </p>
      ) : null}
    </fieldset>
  );
}
