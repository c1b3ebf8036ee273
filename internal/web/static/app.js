// limen's web app: the live queue, answers, and passkeys. Plain script,
// no build step; the server renders every ask, this only moves them.
"use strict";

const b64 = {
  decode(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(s + "===".slice((s.length + 3) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
  },
  encode(buf) {
    let s = "";
    for (const b of new Uint8Array(buf)) s += String.fromCharCode(b);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
};

async function post(url, fields) {
  const resp = await fetch(url, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams(fields),
    credentials: "same-origin",
  });
  let body = {};
  try { body = await resp.json(); } catch (e) { /* not JSON */ }
  return { status: resp.status, ok: resp.ok, body };
}

// Passkey ceremonies: go-webauthn's options, with base64url fields made
// into buffers, and the browser's answer made into JSON again.
function creationOptions(o) {
  const pk = o.publicKey;
  pk.challenge = b64.decode(pk.challenge);
  pk.user.id = b64.decode(pk.user.id);
  for (const c of pk.excludeCredentials || []) c.id = b64.decode(c.id);
  return o;
}

function requestOptions(o) {
  const pk = o.publicKey;
  pk.challenge = b64.decode(pk.challenge);
  for (const c of pk.allowCredentials || []) c.id = b64.decode(c.id);
  return o;
}

function credentialJSON(c) {
  const r = c.response, out = { id: c.id, rawId: b64.encode(c.rawId), type: c.type, response: { clientDataJSON: b64.encode(r.clientDataJSON) } };
  if (r.attestationObject) {
    out.response.attestationObject = b64.encode(r.attestationObject);
    if (r.getTransports) out.response.transports = r.getTransports();
  } else {
    out.response.authenticatorData = b64.encode(r.authenticatorData);
    out.response.signature = b64.encode(r.signature);
    if (r.userHandle) out.response.userHandle = b64.encode(r.userHandle);
  }
  return JSON.stringify(out);
}

// Pairing.
function setupPairing(root) {
  const status = document.getElementById("pair-status");
  document.getElementById("pair-button").addEventListener("click", async () => {
    status.textContent = "Creating a passkey…";
    try {
      const begin = await post("/pair/begin", { code: root.dataset.code });
      if (!begin.ok) throw new Error(begin.body.error || begin.status);
      const cred = await navigator.credentials.create(creationOptions(begin.body));
      const resp = await fetch("/pair/finish?code=" + encodeURIComponent(root.dataset.code), {
        method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: credentialJSON(cred), credentials: "same-origin",
      });
      const body = await resp.json();
      if (!resp.ok) throw new Error(body.error || resp.status);
      status.textContent = "Paired as " + body.user + ". Opening the queue…";
      status.dataset.paired = body.device;
      location.assign("/");
    } catch (e) {
      status.textContent = "Not paired: " + e.message;
      status.dataset.failed = "1";
    }
  });
}

// The queue.
function left(card) {
  const ms = Date.parse(card.dataset.expires) - Date.now();
  if (ms <= 0) return "expiring now";
  const s = Math.floor(ms / 1000);
  return "expires in " + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

function tick() {
  for (const card of document.querySelectorAll("article.ask")) {
    const el = card.querySelector("[data-left]");
    if (el) el.textContent = left(card);
  }
}

function updateEmpty(queue) {
  document.getElementById("empty").hidden = queue.querySelector("article.ask") !== null;
}

function show(queue, id, html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  const card = t.content.firstElementChild;
  const old = document.getElementById("ask-" + id);
  if (old) old.replaceWith(card); else queue.appendChild(card);
  wire(card);
  tick();
  updateEmpty(queue);
}

// gone ends a card: it says how the ask ended for a few seconds (so the
// person sees their answer land, or someone else's), then goes.
function gone(queue, id, how, now) {
  const card = document.getElementById("ask-" + id);
  if (!card) return;
  const remove = () => { card.remove(); updateEmpty(queue); };
  if (now) { remove(); return; }
  card.dataset.gone = how;
  card.classList.add("ended");
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  card.querySelector(".status").textContent = "Ask " + id + " " + how + ".";
  setTimeout(remove, 4000);
}

function wire(card) {
  const form = card.querySelector("form.answer");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    answer(card, form, ev.submitter ? ev.submitter.value : "deny");
  });
}

async function answer(card, form, choice) {
  const status = form.querySelector(".status");
  const fields = { choice, digest: form.elements.digest.value, note: form.elements.note.value };
  const sign = choice === "session" || choice === "rule" || (choice === "approve" && card.dataset.signApprove === "1");
  try {
    if (sign) {
      status.textContent = "Confirm with your passkey…";
      const ch = await post(form.action.replace(/answer$/, "challenge"), fields);
      if (ch.body.stale) { await refresh(card, ch.body.error); return; }
      if (!ch.ok) throw Object.assign(new Error(ch.body.error || ch.status), { status: ch.status });
      const cred = await navigator.credentials.get(requestOptions(ch.body.options));
      fields.nonce = ch.body.nonce;
      fields.assertion = credentialJSON(cred);
    }
    status.textContent = "Sending…";
    const r = await post(form.action, fields);
    if (r.body.stale) { await refresh(card, r.body.error); return; }
    if (!r.ok) throw Object.assign(new Error(r.body.error || r.status), { status: r.status });
    card.dataset.answered = r.body.verdict;
    if (!card.dataset.gone) status.textContent = "Answered: " + r.body.verdict;
  } catch (e) {
    status.textContent = (e.status ? e.status + ": " : "") + e.message + " (the ask stays pending unless it says otherwise)";
    card.dataset.error = String(e.status || "");
  }
}

// refresh shows an ask afresh (the policy changed since the page showed
// it, so what is signed changed too), saying why, for the person to look
// again before answering.
async function refresh(card, why) {
  const resp = await fetch("/asks/" + card.dataset.id, { credentials: "same-origin" });
  const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
  const fresh = doc.getElementById(card.id);
  if (!fresh) { card.querySelector(".status").textContent = why; return; }
  card.replaceWith(fresh);
  wire(fresh);
  tick();
  fresh.querySelector(".status").textContent = why;
  fresh.dataset.refreshed = "1";
}

function setupQueue(queue) {
  for (const card of queue.querySelectorAll("article.ask")) wire(card);
  tick();
  setInterval(tick, 1000);
  if (queue.dataset.single) return;
  const live = document.getElementById("live");
  const es = new EventSource("/events?after=" + encodeURIComponent(queue.dataset.last || "0"));
  es.addEventListener("open", () => { live.dataset.on = "1"; });
  es.addEventListener("error", () => {
    live.dataset.on = "";
    // A refused stream (the device was revoked, the session ended) is
    // not retried by the browser: say so rather than show a stale queue.
    if (es.readyState === EventSource.CLOSED) {
      const note = document.getElementById("ended");
      note.hidden = false;
      for (const b of queue.querySelectorAll("button")) b.disabled = true;
    }
  });
  es.addEventListener("sync", (ev) => {
    const ids = new Set(JSON.parse(ev.data).ids);
    for (const card of queue.querySelectorAll("article.ask")) {
      if (!ids.has(card.dataset.id)) gone(queue, card.dataset.id, "ended", true);
    }
    queue.dataset.synced = String(Number(queue.dataset.synced || 0) + 1);
  });
  es.addEventListener("ask", (ev) => { const d = JSON.parse(ev.data); show(queue, d.id, d.html); });
  es.addEventListener("gone", (ev) => { const d = JSON.parse(ev.data); gone(queue, d.id, d.how); });
}

document.addEventListener("DOMContentLoaded", () => {
  const pair = document.getElementById("pair");
  if (pair) setupPairing(pair);
  const queue = document.getElementById("queue");
  if (queue) setupQueue(queue);
});
