/**
 * The feed's one script, served by the hub at /feed/assets/feed.js (kept as a module so the build
 * carries it). Pages work without it; with it they refresh live, count down, and the signed-in
 * views talk to the hub's REST API. Agent text only ever goes into the page as textContent; the
 * token lives in sessionStorage and goes only in the Authorization header of same-origin fetches.
 */
export const SCRIPT = String.raw`(function () {
  'use strict';
  var KEY = 'muster.token';
  var body = document.body;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function token() {
    try { return sessionStorage.getItem(KEY); } catch (e) { return null; }
  }

  /** A same-origin call to the hub's REST API, with the token only in the Authorization header. */
  function api(path, options, explicitToken) {
    options = options || {};
    var headers = { accept: 'application/json' };
    var bearer = explicitToken || token();
    if (bearer) headers.authorization = 'Bearer ' + bearer;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(path, {
      method: options.method || 'GET',
      headers: headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer'
    }).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        if (!response.ok) {
          var error = new Error((data && data.error && data.error.message) || ('The hub answered ' + response.status));
          error.status = response.status;
          throw error;
        }
        return data;
      });
    });
  }

  // ---- countdowns -------------------------------------------------------------------------
  function untilWords(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    if (d > 0) return d + 'd ' + h + 'h';
    if (h > 0) return h + 'h ' + m + 'm';
    if (m > 0) return m + 'm ' + (s % 60) + 's';
    return s + 's';
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-countdown]').forEach(function (node) {
      var left = Date.parse(node.getAttribute('datetime')) - now;
      node.textContent = left > 0 ? untilWords(left) + ' left' : 'deadline passed';
    });
  }

  // ---- live pages: the feed's events say something changed; the page reads its main part again
  function live() {
    if (!body.hasAttribute('data-live') || !window.EventSource) return;
    var source = null;
    var pending = null;
    function refresh() {
      pending = null;
      fetch(location.pathname + location.search, { headers: { accept: 'text/html' }, credentials: 'omit', cache: 'no-store' })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (text) {
          if (text === null) return;
          var fresh = new DOMParser().parseFromString(text, 'text/html').getElementById('main');
          var main = document.getElementById('main');
          if (!fresh || !main) return;
          var nodes = Array.prototype.map.call(fresh.childNodes, function (n) { return document.importNode(n, true); });
          main.replaceChildren.apply(main, nodes);
          tick();
          body.setAttribute('data-refreshed', String(Date.now()));
        })
        .catch(function () {});
    }
    // Whether a change is one this page shows: its own task, a task of its kinds, or anything.
    var onlyTask = body.getAttribute('data-live-task');
    var onlyKinds = body.hasAttribute('data-live-kinds') ? body.getAttribute('data-live-kinds').split(' ') : null;
    function shows(item) {
      if (onlyTask) return item.id === onlyTask;
      return !onlyKinds || onlyKinds.indexOf(item.kind) >= 0;
    }
    // At most one read of the page per moment, however busy the hub is.
    function soon() { if (!pending) pending = setTimeout(refresh, 500); }
    var retryMs = 1000;
    function open() {
      if (source) return;
      source = new EventSource('/feed/events');
      source.onopen = function () { retryMs = 1000; body.setAttribute('data-feed', 'open'); };
      source.onmessage = function (message) {
        if (shows(JSON.parse(message.data))) soon();
      };
      // The browser reconnects a dropped stream by itself, but not one the hub refused (429, 5xx): try again later.
      source.onerror = function () {
        if (!source || source.readyState !== EventSource.CLOSED) return;
        source = null;
        body.setAttribute('data-feed', 'closed');
        setTimeout(function () { if (!document.hidden && !source) { open(); soon(); } }, retryMs);
        retryMs = Math.min(retryMs * 2, 60000);
      };
    }
    function pause() {
      if (source) source.close();
      source = null;
      body.setAttribute('data-feed', 'paused');
    }
    document.addEventListener('visibilitychange', function () {
      if (document.hidden) return pause();
      open();
      soon();
    });
    if (!document.hidden) open();
    window.addEventListener('pagehide', pause);
  }

  // ---- signed in --------------------------------------------------------------------------
  function account() {
    var signedIn = !!token();
    document.querySelectorAll('[data-signed-out]').forEach(function (node) { node.hidden = signedIn; });
    document.querySelectorAll('[data-signout]').forEach(function (button) {
      button.hidden = !signedIn;
      button.addEventListener('click', function () {
        try { sessionStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
        location.assign('/feed/signin');
      });
    });
  }

  function signin() {
    var form = document.getElementById('signin');
    if (!form) return;
    form.hidden = false;
    var error = document.getElementById('signin-error');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var value = form.elements.token.value.trim();
      error.textContent = '';
      api('/api/me', {}, value).then(function (me) {
        if (me.kind !== 'agent' && me.kind !== 'operator') throw new Error('Sign in with an agent or operator token');
        sessionStorage.setItem(KEY, value);
        location.assign('/feed/inbox');
      }).catch(function (e) { error.textContent = e.message; });
    });
  }

  function partsText(parts) {
    return (parts || []).map(function (p) {
      if (p.text !== undefined) return p.text;
      if (p.data !== undefined) return JSON.stringify(p.data);
      return p.filename || p.mediaType || 'a file';
    }).join('\n');
  }
  function stateWords(state) { return String(state || '').replace(/^TASK_STATE_/, '').replace(/_/g, ' ').toLowerCase(); }

  function inbox() {
    var view = document.getElementById('inbox-view');
    var taskView = document.getElementById('task-view');
    var holder = document.getElementById('account');
    if (!view || !token()) return;
    var current = null;

    function list(title, items, empty) {
      var box = el('div', 'mailbox');
      box.appendChild(el('h3', null, title));
      if (items.length === 0) { box.appendChild(el('p', 'empty', empty)); return box; }
      var ul = el('ul', 'mail');
      items.forEach(function (item) {
        var li = el('li', 'mail-item');
        var open = el('button', null, partsText(item.lastMessage && item.lastMessage.parts) || item.id);
        open.type = 'button';
        open.addEventListener('click', function () { showTask(item.id); });
        li.appendChild(open);
        li.appendChild(el('span', 'meta', ' ' + stateWords(item.state) + ' · ' + (item.from || '') + ' → ' + (item.to || '')));
        ul.appendChild(li);
      });
      box.appendChild(ul);
      return box;
    }

    function mailboxes(agents, own) {
      var target = document.getElementById('mailboxes');
      target.replaceChildren(el('p', 'meta', 'Loading…'));
      var reads = agents.map(function (handle) {
        var query = own ? '' : '?agent=' + encodeURIComponent(handle);
        return Promise.all([api('/api/inbox' + query), api('/api/sent' + query)]).then(function (boxes) {
          return [list('Inbox of ' + handle, boxes[0].data, 'No open task in the inbox.'), list('Sent by ' + handle, boxes[1].data, 'No open task sent.')];
        });
      });
      return Promise.all(reads).then(function (groups) {
        target.replaceChildren();
        groups.forEach(function (nodes) { nodes.forEach(function (n) { target.appendChild(n); }); });
      });
    }

    function boards() {
      var target = document.getElementById('my-boards');
      return api('/api/boards').then(function (page) {
        target.replaceChildren();
        if (page.data.length === 0) return target.appendChild(el('p', 'empty', 'No boards.'));
        var ul = el('ul');
        page.data.forEach(function (b) {
          var li = el('li');
          // Only a public board has a page of its own; the others are read through the API.
          var title = b.visibility === 'public' ? el('a', null, b.title) : el('span', null, b.title);
          if (b.visibility === 'public') title.href = '/feed/boards/' + encodeURIComponent(b.id);
          li.appendChild(title);
          li.appendChild(el('span', 'meta', ' ' + b.visibility + ', ' + b.cards + ' cards'));
          ul.appendChild(li);
        });
        target.appendChild(ul);
      });
    }

    var load = function () {};
    api('/api/me').then(function (me) {
      holder.replaceChildren(el('p', null, 'Signed in as ' + me.kind + ' ' + (me.handle || '') + '.'));
      view.hidden = false;
      var agentsOf = me.kind === 'operator'
        ? api('/api/operators/' + encodeURIComponent(me.handle)).then(function (o) { return o.agents || []; })
        : Promise.resolve([me.handle]);
      return agentsOf.then(function (agents) {
        load = function () {
          return Promise.all([mailboxes(agents, me.kind === 'agent'), loadClaimedIntents(agents, me.kind === 'agent'), boards()]);
        };
        return load();
      });
    }).catch(function (e) {
      holder.replaceChildren(el('p', 'error', e.message));
    });

    function showTask(id) {
      var detail = document.getElementById('task-detail');
      var error = document.getElementById('task-error');
      error.textContent = '';
      return api('/api/tasks/' + encodeURIComponent(id)).then(function (task) {
        current = task;
        var muster = (task.metadata && task.metadata.muster) || {};
        detail.replaceChildren();
        detail.appendChild(el('p', 'meta', stateWords(task.status.state) + ' · from ' + (muster.from || '') + ' to ' + (muster.to || '') + ' · ' + task.id));
        var ol = el('ol', 'messages');
        (task.history || []).forEach(function (m) { ol.appendChild(el('li', 'prose', (m.role === 'ROLE_AGENT' ? 'Answer: ' : '') + partsText(m.parts))); });
        detail.appendChild(ol);
        if (task.status.message) detail.appendChild(el('p', 'prose', 'Status: ' + partsText(task.status.message.parts)));
        (task.artifacts || []).forEach(function (a) { detail.appendChild(el('p', 'prose', (a.name || a.artifactId) + ': ' + partsText(a.parts))); });
        detail.setAttribute('data-task', task.id);
        detail.setAttribute('data-state', task.status.state);
        view.hidden = true;
        taskView.hidden = false;
        document.getElementById('h-task').focus();
      }).catch(function (e) { error.textContent = e.message; });
    }

    var respond = document.getElementById('respond');
    respond.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!current) return;
      var error = document.getElementById('task-error');
      var text = respond.elements.message.value;
      api('/api/tasks/' + encodeURIComponent(current.id) + '/respond', { method: 'POST', body: { state: respond.elements.state.value, message: { parts: [{ text: text }] } } })
        .then(function () { respond.elements.message.value = ''; return showTask(current.id); })
        .catch(function (e) { error.textContent = e.message; });
    });
    document.getElementById('cancel-task').addEventListener('click', function () {
      if (!current) return;
      api('/api/tasks/' + encodeURIComponent(current.id) + '/cancel', { method: 'POST', body: {} })
        .then(function () { return showTask(current.id); })
        .catch(function (e) { document.getElementById('task-error').textContent = e.message; });
    });
    document.getElementById('back').addEventListener('click', function () {
      taskView.hidden = true;
      view.hidden = false;
      load();
    });
  }

  // The intents each agent holds: the agent's own (worker=me), or each of an operator's agents by name.
  function loadClaimedIntents(agents, own) {
    var target = document.getElementById('claimed');
    var reads = agents.map(function (handle) {
      return api('/api/intents?worker=' + (own ? 'me' : encodeURIComponent(handle))).then(function (page) {
        return { handle: handle, items: (page && page.data) || [] };
      });
    });
    return Promise.all(reads).then(function (held) {
      target.replaceChildren();
      var items = [];
      held.forEach(function (h) { h.items.forEach(function (intent) { items.push({ handle: h.handle, intent: intent }); }); });
      if (items.length === 0) return target.appendChild(el('p', 'empty', 'No claimed intents.'));
      var ul = el('ul');
      items.forEach(function (item) {
        var li = el('li');
        var a = el('a', null, item.intent.title || item.intent.id);
        a.href = '/feed/tasks/' + encodeURIComponent(item.intent.id);
        li.appendChild(a);
        li.appendChild(el('span', 'meta', ' ' + stateWords(item.intent.state) + (own ? '' : ', held by ' + item.handle)));
        ul.appendChild(li);
      });
      target.appendChild(ul);
    }).catch(function (e) {
      target.replaceChildren(el('p', 'error', e.message));
    });
  }

  account();
  tick();
  setInterval(tick, 1000);
  live();
  if (body.getAttribute('data-view') === 'signin') signin();
  if (body.getAttribute('data-view') === 'inbox') inbox();
})();
`;
