import FaceCam

/// The page at /: the preview stream, the faces of the newest frame (from
/// /events) and the run's counters (from /metrics, twice a second), and with
/// `people` the people panel (from /people, every 2 s). Every URL in it is
/// relative, so it works behind a proxy that serves it under a prefix.
enum PreviewPage {
    static func html(source: String, people: Bool = false) -> String {
        let name = markupEscaped(source)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>facecam: \(name)</title>
            <style>
            body { margin: 0; font: 14px/1.4 "DejaVu Sans", sans-serif; background: #16181d; color: #e6e6e6; }
            header { padding: 8px 16px; background: #22252c; display: flex; gap: 12px; align-items: baseline; }
            header h1 { font-size: 16px; margin: 0; }
            header .source { color: #9aa0a6; overflow-wrap: anywhere; }
            main { display: flex; flex-wrap: wrap; gap: 16px; padding: 16px; align-items: flex-start; }
            #preview { max-width: 100%; background: #000; display: block; }
            aside { min-width: 260px; }
            table { border-collapse: collapse; width: 100%; margin-bottom: 16px; }
            th, td { text-align: right; padding: 2px 8px; border-bottom: 1px solid #2e323a; font-variant-numeric: tabular-nums; }
            th:first-child, td:first-child { text-align: left; }
            #state.ended { color: #f28b82; }
            #people { flex-basis: 100%; }
            #people h2 { font-size: 15px; margin: 8px 0; }
            #unknown { display: flex; flex-wrap: wrap; gap: 12px; }
            #unknown figure { margin: 0; padding: 8px; background: #22252c; width: 200px; }
            #unknown img { width: 112px; height: 112px; display: block; background: #000; }
            #unknown figcaption, #people .note { color: #9aa0a6; font-size: 12px; }
            #people input { width: 100px; }
            #people table { width: auto; min-width: 420px; }
            #message { color: #fdd663; min-height: 1.4em; }
            </style>
            </head>
            <body>
            <header><h1>facecam</h1><span class="source">\(name)</span><span id="state">live</span></header>
            <main>
            <img id="preview" src="stream.mjpg" alt="the live preview, faces outlined">
            <aside>
            <table id="counters">
            <tr><th>frames/s</th><td id="fps">-</td></tr>
            <tr><th>processed</th><td id="processed">-</td></tr>
            <tr><th>dropped</th><td id="dropped">-</td></tr>
            <tr><th>never delivered</th><td id="missed">-</td></tr>
            <tr><th>latency</th><td id="latency">-</td></tr>
            </table>
            <table>
            <thead><tr><th>id</th><th>x</th><th>y</th><th>width</th><th>height</th><th>score</th></tr></thead>
            <tbody id="faces"></tbody>
            </table>
            <div>frame <span id="frame">-</span></div>
            </aside>
            \(people ? peoplePanel : "")
            </main>
            <script>
            const cell = (text) => { const td = document.createElement("td"); td.textContent = text; return td; };
            const events = new EventSource("events");
            events.onmessage = (message) => {
              const record = JSON.parse(message.data);
              document.getElementById("frame").textContent = record.frame;
              const rows = record.faces.map((face) => {
                const row = document.createElement("tr");
                const [x, y, width, height] = face.preview.map((v) => Math.round(v));
                [face.id ?? "", x, y, width, height, face.score === undefined ? "" : face.score.toFixed(2)]
                  .forEach((value) => row.appendChild(cell(value)));
                return row;
              });
              document.getElementById("faces").replaceChildren(...rows);
            };
            events.onerror = () => {
              if (events.readyState === EventSource.CLOSED) { document.getElementById("state").textContent = "ended"; }
            };
            // Rates over the last two seconds of samples, so they settle quickly and do not jitter.
            const samples = [];
            async function poll() {
              try {
                const text = await (await fetch("metrics", { cache: "no-store" })).text();
                const values = {};
                for (const line of text.split("\\n")) {
                  if (line === "" || line.startsWith("#")) continue;
                  const space = line.lastIndexOf(" ");
                  values[line.slice(0, space)] = parseFloat(line.slice(space + 1));
                }
                const now = { time: performance.now(), processed: values.facecam_frames_processed_total,
                  latencySum: values.facecam_latency_seconds_sum, latencyCount: values.facecam_latency_seconds_count };
                document.getElementById("processed").textContent = now.processed;
                document.getElementById("dropped").textContent = values.facecam_frames_dropped_total;
                document.getElementById("missed").textContent = values.facecam_frames_missed_total;
                // The first sample starts from the process's start: every count was 0 then.
                if (samples.length === 0 && values.process_start_time_seconds > 0) {
                  const uptime = Date.now() - values.process_start_time_seconds * 1000;
                  samples.push({ time: now.time - uptime, processed: 0, latencySum: 0, latencyCount: 0 });
                }
                samples.push(now);
                while (samples.length > 2 && now.time - samples[1].time >= 2000) samples.shift();
                const first = samples[0];
                if (now.time > first.time) {
                  document.getElementById("fps").textContent =
                    ((now.processed - first.processed) * 1000 / (now.time - first.time)).toFixed(1);
                  const frames = now.latencyCount - first.latencyCount;
                  if (frames > 0) {
                    document.getElementById("latency").textContent =
                      ((now.latencySum - first.latencySum) * 1000 / frames).toFixed(0) + " ms";
                  }
                }
                document.getElementById("state").textContent = "live";
                document.getElementById("state").className = "";
              } catch (error) {
                document.getElementById("state").textContent = "ended";
                document.getElementById("state").className = "ended";
              }
            }
            poll();
            setInterval(poll, 500);
            \(people ? peopleScript : "")
            </script>
            </body>
            </html>

            """
    }

    private static let peoplePanel = """
        <section id="people">
        <h2>Not known</h2>
        <div class="note" id="unknown-note">No one unknown seen lately.</div>
        <div id="unknown"></div>
        <h2>Known</h2>
        <table><thead><tr><th>name</th><th>last seen</th><th></th></tr></thead><tbody id="known"></tbody></table>
        <div id="token-row" hidden>Changes need the token live wrote at its start:
        <input id="token" type="password" autocomplete="off"> <button id="token-save">Use it</button></div>
        <div id="message" role="status"></div>
        </section>
        """

    /// Polls /people and draws it again when it changed, but not while a field of it is being typed in. The token comes
    /// from the address's #token= (which browsers never send) or the token field, and stays in this tab's session
    /// storage; one refused (a restarted live makes a new one) is forgotten and asked for again.
    private static let peopleScript = """
        const tokenKey = "facecam-token";
        const fromAddress = location.hash.match(/^#token=(.+)$/)?.[1];
        if (fromAddress) {
          let token = fromAddress;
          try { token = decodeURIComponent(fromAddress); } catch (error) {}
          sessionStorage.setItem(tokenKey, token);
          history.replaceState(null, "", location.pathname + location.search);
        }
        document.getElementById("token-save").onclick = () => {
          sessionStorage.setItem(tokenKey, document.getElementById("token").value.trim());
          document.getElementById("token-row").hidden = true;
        };
        const when = (seconds) => seconds === null ? "not since the start" : new Date(seconds * 1000).toLocaleTimeString();
        const button = (text, action) => {
          const b = document.createElement("button"); b.textContent = text; b.onclick = action; return b;
        };
        async function change(route, body) {
          const response = await fetch("people/" + route, { method: "POST", cache: "no-store",
            headers: { "Content-Type": "application/json", "X-Facecam-Token": sessionStorage.getItem(tokenKey) ?? "" },
            body: JSON.stringify(body) });
          const answer = await response.json().catch(() => ({ message: response.statusText }));
          document.getElementById("message").textContent = answer.message;
          if (response.status === 403 && answer.message?.includes("needs the token")) {
            sessionStorage.removeItem(tokenKey);
            document.getElementById("token-row").hidden = false;
          }
          lastPeople = "";
          pollPeople();
        }
        let lastPeople = "";
        async function pollPeople() {
          let text;
          try { text = await (await fetch("people", { cache: "no-store" })).text(); } catch (error) { return; }
          if (text === lastPeople || document.activeElement?.closest?.("#people input")) return;
          lastPeople = text;
          const people = JSON.parse(text);
          if (people.changes && !sessionStorage.getItem(tokenKey)) document.getElementById("token-row").hidden = false;
          const typed = {};
          for (const input of document.querySelectorAll("#people input[data-key]")) typed[input.dataset.key] = input.value;
          const focused = document.activeElement?.dataset?.key;
          const groups = people.unknown.map((group) => {
            const figure = document.createElement("figure");
            figure.dataset.tracks = group.tracks.join(",");
            const img = document.createElement("img");
            img.src = group.picture;
            img.alt = "an unknown face";
            const caption = document.createElement("figcaption");
            caption.textContent = "seen " + when(group.lastSeen) + (group.tracks.length > 1 ? ", " + group.tracks.length + " times" : "")
              + (group.zones.length ? " in " + group.zones.join(", ") : "");
            figure.append(img, caption);
            if (people.changes) {
              const name = document.createElement("input");
              name.placeholder = "name";
              name.dataset.key = "name:" + group.tracks[group.tracks.length - 1];
              const naming = () => { if (name.value.trim()) change("name", { tracks: group.tracks, name: name.value.trim() }); };
              name.onkeydown = (event) => { if (event.key === "Enter") naming(); };
              figure.append(name, button("Name", naming), button("Dismiss", () => change("dismiss", { tracks: group.tracks })));
            }
            return figure;
          });
          document.getElementById("unknown").replaceChildren(...groups);
          document.getElementById("unknown-note").hidden = groups.length > 0;
          const rows = people.known.map((person) => {
            const row = document.createElement("tr");
            row.appendChild(cell(person.name)).style.textAlign = "left";
            row.appendChild(cell(when(person.lastSeen)));
            const actions = document.createElement("td");
            if (people.changes) {
              const to = document.createElement("input");
              to.placeholder = "new name";
              to.dataset.key = "rename:" + person.name;
              actions.append(to, button("Rename", () => { if (to.value.trim()) change("rename", { name: person.name, to: to.value.trim() }); }),
                button("Forget", () => { if (confirm("Forget " + person.name + "? Their descriptors are deleted.")) change("forget", { name: person.name }); }));
            }
            row.appendChild(actions);
            return row;
          });
          document.getElementById("known").replaceChildren(...rows);
          for (const input of document.querySelectorAll("#people input[data-key]")) {
            if (typed[input.dataset.key] !== undefined) input.value = typed[input.dataset.key];
            if (input.dataset.key === focused) input.focus();
          }
        }
        pollPeople();
        setInterval(pollPeople, 2000);
        """
}
