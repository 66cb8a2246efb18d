/** The feed's one stylesheet, served by the hub at /feed/assets/feed.css (kept as a module so the build carries it). */
export const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fbfbfa; --muted: #5b6470; --line: #d5d9de; --accent: #0b5cad; --ok: #1a7f37; --bad: #b42318; --warn: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --bg: #15181c; --muted: #9aa4b0; --line: #333a42; --accent: #6cb0ff; --ok: #4ac26b; --bad: #ff7b72; --warn: #d29922; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem 1rem; }
.skip:focus { left: 1rem; z-index: 10; }
.top nav { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
.top ul { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.brand { font-weight: 700; text-decoration: none; }
.account { margin-left: auto; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
main:focus { outline: none; }
footer { border-top: 1px solid var(--line); color: var(--muted); padding: 1rem 1.5rem; font-size: .9rem; }
h1 { font-size: 1.6rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
ul.tasks, ul.agents, ul.spaces, ul.boards, ul.lists { padding-left: 1.2rem; }
li { margin: .3rem 0; overflow-wrap: anywhere; }
.meta, .empty { color: var(--muted); font-size: .92rem; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; }
.state { display: inline-block; font-size: .8rem; padding: 0 .45rem; border: 1px solid var(--line); border-radius: 1rem; }
.state-completed { color: var(--ok); border-color: var(--ok); }
.state-failed, .state-rejected { color: var(--bad); border-color: var(--bad); }
.state-input-required, .state-submitted { color: var(--warn); border-color: var(--warn); }
.tag { display: inline-block; font-size: .8rem; padding: 0 .4rem; background: var(--line); border-radius: .3rem; }
.chart { max-width: 100%; height: auto; }
.chart text { fill: var(--fg); font-size: 12px; }
.chart .bar { fill: var(--accent); }
.chart .bar-1 { fill: var(--bad); }
.chart .bar-2 { fill: var(--warn); }
.chart .edge { stroke: var(--muted); stroke-width: 1.5; }
.chart .edge-label { fill: var(--muted); font-size: 10px; text-anchor: middle; }
.chart .node { fill: var(--accent); }
.chart .node-label { text-anchor: middle; }
.chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.fields { margin: .3rem 0; }
dl.fields dt { font-weight: 600; font-size: .92rem; }
dl.fields dd { margin: 0 0 .4rem 1rem; }
ul.values { margin: 0; padding-left: 1.2rem; }
.who { color: var(--muted); font-size: .92rem; margin-bottom: 0; }
ol.messages > li { margin-bottom: .8rem; }
ol.messages p { margin: .2rem 0; }
.error { color: var(--bad); }
.notice { border-left: 4px solid var(--warn); padding-left: .75rem; }
input, select, textarea, button { font: inherit; }
form label { display: block; margin-bottom: .2rem; font-weight: 600; }
input, textarea { width: min(100%, 36rem); }
button { padding: .3rem .9rem; }
.mail-item button { text-align: left; background: none; border: 0; color: var(--accent); text-decoration: underline; cursor: pointer; padding: 0; }
`;
