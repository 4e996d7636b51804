import { render } from "preact";
import "uplot/dist/uPlot.min.css";
import { App } from "./app.js";
import "./styles.css";

render(<App />, document.getElementById("app")!);
