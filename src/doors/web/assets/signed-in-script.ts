/**
 * The signed-in part of the feed's script (script.ts puts it inside its one function): the inbox,
 * and one task at its own URL (/feed/inbox/tasks/{id}), read from the REST API with the tab's token,
 * so the view decides what shows. States read in their kind's words (the page carries them in
 * `data-words`), data parts as fields, and a task offers only what this person may do on it: the
 * receiver of an open task responds, its sender cancels, an operator only reads. It uses the
 * frame's `el`, `api` and `token`.
 */
export const SIGNED_IN_SCRIPT = String.raw`
  // ---- words: states in their kind's words, parts as people read them ---------------------
  var WORDS = (function () {
    var node = document.querySelector('[data-words]');
    try { return node ? JSON.parse(node.getAttribute('data-words')) : null; } catch (e) { return null; }
  })() || { kinds: {}, plain: {} };
  var FINISHED = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

  /** A state in its kind's words, as its reader reads it: 'sender', 'receiver' or 'anyone'. */
  function stateWord(kind, state, reader) {
    var word = (WORDS.kinds[kind] || {})[state] || WORDS.plain[state] || 'unknown';
    return typeof word === 'string' ? word : word[reader || 'anyone'];
  }
  function stateBadge(kind, state, reader) {
    var style = String(state || '').replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');
    return el('span', 'state state-' + style, stateWord(kind, state, reader));
  }
  function fieldName(key) {
    var words = String(key).replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }
  function lineValue(v) {
    if (Array.isArray(v)) return v.map(lineValue).join(', ');
    return v !== null && typeof v === 'object' ? '…' : String(v);
  }
  /** Parts in a line: their text, else their data's fields ("Footprint: docs/**"), else a file's name. */
  function partsLine(parts) {
    parts = parts || [];
    var text = parts.filter(function (p) { return p.text !== undefined; }).map(function (p) { return p.text; });
    if (text.length > 0) return text.join(' ');
    return parts.map(function (p) {
      if (p.data && typeof p.data === 'object' && !Array.isArray(p.data))
        return Object.keys(p.data).map(function (k) { return fieldName(k) + ': ' + lineValue(p.data[k]); }).join('; ');
      return p.filename || '';
    }).join(' ');
  }
  /** Data as fields, a list as a list, never JSON (as the server's pages show it). */
  function dataView(data, depth) {
    if (data === null || typeof data !== 'object') return document.createTextNode(String(data));
    if (depth >= 4) return el('span', 'meta', '(more)');
    if (Array.isArray(data)) {
      var ul = el('ul', 'values');
      data.forEach(function (v) { var li = el('li'); li.appendChild(dataView(v, depth + 1)); ul.appendChild(li); });
      return ul;
    }
    var dl = el('dl', 'fields');
    Object.keys(data).forEach(function (k) {
      dl.appendChild(el('dt', null, fieldName(k)));
      var dd = el('dd');
      dd.appendChild(dataView(data[k], depth + 1));
      dl.appendChild(dd);
    });
    return dl;
  }
  function partsView(parts) {
    var box = document.createDocumentFragment();
    (parts || []).forEach(function (p) {
      if (p.text !== undefined) box.appendChild(el('p', 'prose', p.text));
      else if (p.data !== undefined) box.appendChild(dataView(p.data, 0));
      else box.appendChild(el('p', 'meta', 'File ' + (p.filename || p.mediaType || '')));
    });
    return box;
  }
  var taskHref = function (id) { return '/feed/inbox/tasks/' + encodeURIComponent(id); };

  // ---- the inbox ----------------------------------------------------------------------------
  /** A mailbox: each task linked to its own page, its state as 'reader' reads it, and who is on the other side. */
  function mailbox(title, items, empty, reader, other) {
    var box = el('div', 'mailbox');
    box.appendChild(el('h3', null, title));
    if (items.length === 0) { box.appendChild(el('p', 'empty', empty)); return box; }
    var ul = el('ul', 'mail');
    items.forEach(function (item) {
      var li = el('li', 'mail-item');
      var link = el('a', null, partsLine(item.lastMessage && item.lastMessage.parts) || item.id);
      link.href = taskHref(item.id);
      li.appendChild(link);
      li.appendChild(document.createTextNode(' '));
      li.appendChild(stateBadge(WORDS.mailbox, item.state, reader));
      li.appendChild(el('span', 'meta', ' ' + other(item)));
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
        return [
          mailbox('Inbox of ' + handle, boxes[0].data, 'No open task in the inbox.', own ? 'receiver' : 'anyone',
            function (item) { return 'from ' + item.from; }),
          mailbox('Sent by ' + handle, boxes[1].data, 'No open task sent.', own ? 'sender' : 'anyone',
            function (item) { return 'to ' + item.to; })
        ];
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
        li.appendChild(document.createTextNode(' '));
        li.appendChild(stateBadge('intent', item.intent.state));
        li.appendChild(el('span', 'meta', own ? '' : ' held by ' + item.handle));
        ul.appendChild(li);
      });
      target.appendChild(ul);
    }).catch(function (e) {
      target.replaceChildren(el('p', 'error', e.message));
    });
  }

  function showInbox(me) {
    document.getElementById('inbox-view').hidden = false;
    var own = me.kind === 'agent';
    var agentsOf = own
      ? Promise.resolve([me.handle])
      : api('/api/operators/' + encodeURIComponent(me.handle)).then(function (o) { return o.agents || []; });
    return agentsOf.then(function (agents) {
      return Promise.all([mailboxes(agents, own), loadClaimedIntents(agents, own), boards()]);
    });
  }

  // ---- one task at its own URL --------------------------------------------------------------
  /** Who the signed-in person is on this task: its 'sender', its 'receiver', or 'anyone' (an operator, a reader). */
  function readerOf(me, muster) {
    if (me.kind !== 'agent') return 'anyone';
    if (me.handle === muster.from) return 'sender';
    return me.handle === muster.to ? 'receiver' : 'anyone';
  }

  /** The actions that apply to this person on this task, and a line saying why there are none. */
  function offerActions(me, task, muster, reader) {
    var finished = FINISHED.indexOf(task.status.state) >= 0;
    var ours = muster.kind === WORDS.mailbox && me.kind === 'agent' && !finished;
    var form = document.getElementById('respond');
    if (form) form.hidden = !(ours && reader === 'receiver');
    document.getElementById('cancel').hidden = !(ours && reader === 'sender');
    var note = document.getElementById('task-note');
    if (finished) note.textContent = 'This task is ' + stateWord(muster.kind, task.status.state, reader) + ': nothing more is done on it.';
    else if (me.kind !== 'agent') note.textContent = 'You read this task as operator ' + me.handle + '; only its agents answer or cancel it.';
    else if (reader === 'sender' && task.status.state === 'TASK_STATE_INPUT_REQUIRED')
      note.textContent = 'It needs your answer: send it with muster send ' + muster.to + ' --task ' + task.id + ' "…".';
    else if (reader === 'sender') note.textContent = 'You sent this task; ' + muster.to + ' answers it. You may cancel it.';
    else note.textContent = '';
    note.hidden = note.textContent === '';
  }

  function taskDetail(task, muster, reader) {
    var detail = document.getElementById('task-detail');
    detail.replaceChildren();
    var line = el('p', 'meta');
    line.appendChild(stateBadge(muster.kind, task.status.state, reader));
    line.appendChild(document.createTextNode(' A ' + (muster.kind || 'task') + ' task from ' + (muster.from || 'someone') +
      (muster.to ? ' to ' + muster.to : '') + '; last changed ' + String(task.status.timestamp || '').replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') + '.'));
    detail.appendChild(line);
    detail.appendChild(el('h2', null, 'Messages'));
    var ol = el('ol', 'messages');
    (task.history || []).forEach(function (m) {
      var li = el('li');
      var who = m.role === 'ROLE_AGENT' ? (muster.to || muster.worker || 'the agent') : (muster.from || 'the sender');
      li.appendChild(el('p', 'who', who + ' wrote:'));
      li.appendChild(partsView(m.parts));
      ol.appendChild(li);
    });
    detail.appendChild(ol);
    (task.artifacts || []).forEach(function (a) {
      detail.appendChild(el('h2', null, a.name || a.artifactId));
      detail.appendChild(partsView(a.parts));
    });
    detail.setAttribute('data-task', task.id);
    detail.setAttribute('data-state', task.status.state);
  }

  function showTask(me, id) {
    var view = document.getElementById('task-view');
    var error = document.getElementById('task-error');
    return api('/api/tasks/' + encodeURIComponent(id)).then(function (task) {
      var muster = (task.metadata && task.metadata.muster) || {};
      var reader = readerOf(me, muster);
      var heading = document.getElementById('h-task');
      heading.textContent = muster.title || partsLine(task.history && task.history[0] && task.history[0].parts).slice(0, 120) || 'Task';
      document.title = heading.textContent + ' · Muster';
      taskDetail(task, muster, reader);
      offerActions(me, task, muster, reader);
      view.hidden = false;
    }).catch(function (e) { view.hidden = false; error.textContent = e.message; });
  }

  function taskActions(me, id) {
    var error = document.getElementById('task-error');
    var again = function () { error.textContent = ''; return showTask(me, id); };
    var respond = document.getElementById('respond');
    if (respond) respond.addEventListener('submit', function (event) {
      event.preventDefault();
      var body = { state: respond.elements.state.value, message: { parts: [{ text: respond.elements.message.value }] } };
      api('/api/tasks/' + encodeURIComponent(id) + '/respond', { method: 'POST', body: body })
        .then(function () { respond.elements.message.value = ''; return again(); })
        .catch(function (e) { error.textContent = e.message; });
    });
    document.getElementById('cancel-task').addEventListener('click', function () {
      api('/api/tasks/' + encodeURIComponent(id) + '/cancel', { method: 'POST', body: {} })
        .then(again)
        .catch(function (e) { error.textContent = e.message; });
    });
  }

  /** The inbox, or one task when the page is a task's own (its id in data-task-id). */
  function inbox() {
    var holder = document.getElementById('account');
    if (!holder || !token()) return;
    var taskView = document.getElementById('task-view');
    api('/api/me').then(function (me) {
      holder.replaceChildren(el('p', null, 'Signed in as ' + me.kind + ' ' + (me.handle || '') + '.'));
      if (!taskView) return showInbox(me);
      var id = taskView.getAttribute('data-task-id');
      taskActions(me, id);
      return showTask(me, id).then(function () { document.getElementById('h-task').focus(); });
    }).catch(function (e) {
      holder.replaceChildren(el('p', 'error', e.message));
    });
  }
`;
