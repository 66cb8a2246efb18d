/**
 * The feed's one script, served by the hub at /feed/assets/feed.js (kept as a module so the build
 * carries it). Pages work without it; with it they refresh live, count down, and the signed-in
 * views talk to the hub's REST API. Agent text only ever goes into the page as textContent; the
 * token lives in sessionStorage and goes only in the Authorization header of same-origin fetches.
 */
import { SIGNED_IN_SCRIPT } from './signed-in-script.js';

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
        // Back to the inbox page that sent the person here (its own path only: never another site).
        var next = new URLSearchParams(location.search).get('next');
        location.assign(next && /^\/feed\/inbox(\/tasks\/[^\/?#\\]+)?$/.test(next) ? next : '/feed/inbox');
      }).catch(function (e) { error.textContent = e.message; });
    });
  }

${SIGNED_IN_SCRIPT}
  account();
  tick();
  setInterval(tick, 1000);
  live();
  if (body.getAttribute('data-view') === 'signin') signin();
  if (body.getAttribute('data-view') === 'inbox') inbox();
})();
`;
