#!/usr/bin/env bash
# The two-command quickstart, as a user runs it: `npm start` on a fresh database with no
# provider keys must print a demo key and curl commands, and the list route must answer with
# that key. Needs the build that `npm ci` / `npm install` runs (the root `prepare` script).
set -euo pipefail
cd "$(dirname "$0")/.."
folder=$(mktemp -d)
trap 'kill -TERM -- "-$server" 2>/dev/null || true; rm -rf "$folder"' EXIT

# Port 0: any free port (the banner prints it). Port 9 for Ollama: nothing answers there.
env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY PARLEY_DB="$folder/parley.db" PORT=0 OLLAMA_HOST=http://127.0.0.1:9 \
  setsid npm start >"$folder/stdout.log" 2>"$folder/stderr.log" &
server=$!

for _ in $(seq 1 150); do
  grep -q "Ollama does not answer" "$folder/stderr.log" && break
  sleep 0.2
done
key=$(grep -o 'PARLEY_KEY=prl_[A-Za-z0-9_-]*' "$folder/stderr.log" | cut -d= -f2) || { cat "$folder/stderr.log"; exit 1; }
url=$(grep -o 'listening on http://[0-9.:]*' "$folder/stderr.log" | cut -d' ' -f3)

node --input-type=module -e '
const [url, key] = process.argv.slice(1);
const response = await fetch(`${url}/v1/chatbots`, { headers: { authorization: `Bearer ${key}` } });
const body = await response.json();
if (response.status !== 200 || body[0]?.name !== "Kettlebird Support") throw new Error(`list answered ${response.status} ${JSON.stringify(body)}`);
const chat = await fetch(`${url}/v1/chatbots/${body[0].id}/chat`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ message: "How long is the warranty?" }) });
if (chat.status !== 500) throw new Error(`chat answered ${chat.status} with no provider running`);
console.log(`quickstart: ${url} served the demo chatbot ${body[0].id}; chat answered 500 with no provider, as documented`);
' "$url" "$key"
