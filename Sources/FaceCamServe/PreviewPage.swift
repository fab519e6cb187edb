import FaceCam

/// The page at /: the preview stream, the faces of the newest frame (from
/// /events) and the run's counters (from /metrics, twice a second). Every URL
/// in it is relative, so it works behind a proxy that serves it under a prefix.
enum PreviewPage {
    static func html(source: String) -> String {
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
            </script>
            </body>
            </html>

            """
    }
}
