// pg_mcp console: live progress of a chat, served from the binary (/console/static/chat.js).
// Progressive enhancement: without this script the chat form posts to /console/chat and the
// page answers when mcp.chat returns. With it the form submits the run (mcp.chat_submit), the
// page shows the run's rows as the audit writes them (polling /console/chat/progress/RUN) and
// opens the answer (/console/chat/result/RUN) when the run has ended; its stop button posts
// mcp.chat_cancel. When the submit is refused (no chat workers, a full queue, an unknown
// interface) the form is posted the synchronous way, which shows the database's refusal. Everything from the server is shown
// with textContent: no text becomes markup.
(function () {
  'use strict';
  var form = document.getElementById('chat-form');
  var box = document.getElementById('progress');
  if (!form || !box || !window.fetch || !window.URLSearchParams || !window.FormData) return;
  var statusLine = document.getElementById('progress-status');
  var list = document.getElementById('progress-events');
  var stop = document.getElementById('cancel-form');
  var json = { credentials: 'same-origin', headers: { Accept: 'application/json' } };

  function show(p) {
    box.hidden = false;
    statusLine.textContent = p.status_text || '';
    while (list.firstChild) list.removeChild(list.firstChild);
    (p.events || []).forEach(function (e) {
      var li = document.createElement('li');
      li.className = e.kind === 'tool' ? 'ev-tool' : 'ev-llm';
      li.textContent = e.label;
      list.appendChild(li);
    });
    if (p.note) {
      var n = document.createElement('li');
      n.className = 'muted';
      n.textContent = p.note;
      list.appendChild(n);
    }
  }

  function poll(id, delay) {
    window.setTimeout(function () {
      fetch('/console/chat/progress/' + encodeURIComponent(id), json)
        .then(function (r) { return r.json(); })
        .then(function (p) {
          if (p.error) { statusLine.textContent = p.error.message; return; }
          show(p);
          if (p.done) window.location.assign('/console/chat/result/' + encodeURIComponent(id));
          else poll(id, 500);
        })
        .catch(function () { poll(id, 2000); });
    }, delay);
  }

  var busy = false;
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    if (busy) return;
    busy = true;
    var button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
    var body = new URLSearchParams(new FormData(form));
    fetch('/console/chat/submit', { method: 'POST', body: body, credentials: 'same-origin',
                                    headers: { Accept: 'application/json' } })
      .then(function (r) { return r.json(); })
      .then(function (j) {
        if (!j.run_id) { form.submit(); return; }
        show({ status_text: 'submitted', events: [] });
        // the stop button is a plain form: mcp.chat_cancel, then the run's page
        if (stop) {
          stop.action = '/console/chat/cancel/' + encodeURIComponent(j.run_id);
          stop.hidden = false;
        }
        poll(j.run_id, 200);
      })
      .catch(function () { form.submit(); });
  });
})();
