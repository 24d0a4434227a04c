/**
 * The report's one style sheet, inlined (the report makes no requests). System fonts, a quiet
 * palette, and colour only where it carries meaning: the guard's verdicts (allow grey-green,
 * needs approval amber, block red), outcomes, and the chain's verdict.
 */
export const REPORT_CSS = `
:root {
  --ink: #1b1f24; --muted: #5c6570; --faint: #8a929c; --line: #dde1e6; --bg: #f4f5f7; --card: #fff;
  --ok-bg: #e4f3e8; --ok-ink: #17603a; --ok-line: #9fd3b1;
  --warn-bg: #fff3d6; --warn-ink: #7a4d00; --warn-line: #efc470;
  --bad-bg: #fde4e1; --bad-ink: #9b1c12; --bad-line: #f0a59c;
  --info-bg: #e5eefb; --info-ink: #1d4f91; --info-line: #a9c4ec;
  --grey-bg: #eef0f2; --grey-ink: #4b535c; --grey-line: #d3d8dd;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { scroll-behavior: smooth; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
code, .mono { font-family: var(--mono); font-size: 0.86em; }
a { color: var(--info-ink); }
h1, h2, h3 { line-height: 1.25; margin: 0; }
.layout { display: grid; grid-template-columns: 250px minmax(0, 1fr); min-height: 100vh;
  background: linear-gradient(to right, #fbfbfc 0 249px, var(--line) 249px 250px, transparent 250px); }

/* Sticky step index */
nav.index { position: sticky; top: 0; align-self: start; height: 100vh; overflow-y: auto; padding: 20px 12px 24px 16px;
  font-size: 13px; }
nav.index .index-title { font-weight: 700; font-size: 12px; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); margin: 0 0 8px 6px; }
nav.index ol, nav.index ul { list-style: none; margin: 0; padding: 0; }
nav.index li a { display: grid; grid-template-columns: 26px minmax(0, 1fr) auto; gap: 6px; align-items: baseline; padding: 4px 6px;
  border-radius: 6px; color: var(--ink); text-decoration: none; }
nav.index li a:hover { background: var(--grey-bg); }
nav.index li.broken a { background: var(--bad-bg); color: var(--bad-ink); font-weight: 600; }
nav.index li.unverified a { color: var(--faint); font-style: italic; }
nav.index .n { color: var(--faint); font-variant-numeric: tabular-nums; text-align: right; }
nav.index .t { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
nav.index .t .d { display: block; font-size: 11px; color: var(--faint); font-variant-numeric: tabular-nums; }
nav.index .thumb { display: block; width: 100%; max-width: 120px; aspect-ratio: 1280 / 900; object-fit: cover; object-position: top;
  border: 1px solid var(--line); border-radius: 4px; margin: 2px 0 3px; background: var(--grey-bg); }
nav.index li.current .thumb, nav.index li a:hover .thumb { border-color: var(--info-ink); }
nav.index .marks { display: flex; gap: 3px; }
nav.index .mark { width: 8px; height: 8px; border-radius: 50%; display: inline-block; }
nav.index .mark.warn { background: #e0a020; } nav.index .mark.bad { background: #d0392b; } nav.index .mark.info { background: #4f7fc7; }
nav.index .extra { margin-top: 14px; padding-top: 10px; border-top: 1px solid var(--line); }
nav.index .extra a { display: block; padding: 3px 6px; color: var(--muted); text-decoration: none; }
nav.index .legend { margin: 14px 6px 0; color: var(--muted); font-size: 12px; line-height: 1.7; }
nav.index .legend .mark { margin-right: 6px; }

main { padding: 28px 36px 60px; max-width: 1320px; }
section, header.summary { scroll-margin-top: 12px; }

/* Summary */
.eyebrow { margin: 0 0 6px; font-size: 12px; font-weight: 700; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); }
h1 { font-size: 28px; font-weight: 700; }
.subtitle { margin: 6px 0 18px; color: var(--muted); }
.banner { border: 1px solid; border-radius: 10px; padding: 12px 16px; margin: 0 0 14px; display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 4px 12px; align-items: baseline; }
.banner .icon { font-size: 20px; line-height: 1; font-weight: 700; }
.banner strong { font-size: 16px; }
.banner .detail { grid-column: 2; font-size: 13px; }
.banner.ok { background: var(--ok-bg); border-color: var(--ok-line); color: var(--ok-ink); }
.banner.warn { background: var(--warn-bg); border-color: var(--warn-line); color: var(--warn-ink); }
.banner.bad { background: var(--bad-bg); border-color: var(--bad-line); color: var(--bad-ink); }
.hash { font-family: var(--mono); font-size: 12.5px; word-break: break-all; }
.outcome-card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin-bottom: 14px; }
.outcome-card .status-row { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; }
.outcome-card .reason { font-size: 17px; font-weight: 600; }
.appno { margin-top: 10px; font-size: 13px; color: var(--muted); }
.appno b { display: inline-block; margin-left: 6px; font-family: var(--mono); font-size: 20px; color: var(--ink); letter-spacing: .02em; }
dl.facts { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 0; margin: 0 0 28px; background: var(--card);
  border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
dl.facts div { padding: 10px 14px; border-bottom: 1px solid var(--line); border-right: 1px solid var(--line); margin: -1px -1px 0 0; }
dl.facts dt { font-size: 12px; color: var(--muted); }
dl.facts dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }
dl.facts dd .sub { display: block; font-weight: 400; color: var(--muted); font-size: 12.5px; }

/* Chips */
.chip { display: inline-block; padding: 1px 8px; border-radius: 999px; border: 1px solid; font-size: 12px; font-weight: 600; line-height: 18px; white-space: nowrap; vertical-align: baseline; }
.chip.ok { background: var(--ok-bg); color: var(--ok-ink); border-color: var(--ok-line); }
.chip.warn { background: var(--warn-bg); color: var(--warn-ink); border-color: var(--warn-line); }
.chip.bad { background: var(--bad-bg); color: var(--bad-ink); border-color: var(--bad-line); }
.chip.info { background: var(--info-bg); color: var(--info-ink); border-color: var(--info-line); }
.chip.grey { background: var(--grey-bg); color: var(--grey-ink); border-color: var(--grey-line); }
.chip.allow { background: #eef4ef; color: #35654a; border-color: #cddfd2; }
.chip.big { font-size: 14px; padding: 3px 12px; }
.rule { font-family: var(--mono); font-size: 11.5px; color: var(--muted); margin-left: 4px; }

/* Steps */
h2.section { font-size: 13px; font-weight: 700; letter-spacing: .07em; text-transform: uppercase; color: var(--muted); margin: 30px 0 12px; }
.step { background: var(--card); border: 1px solid var(--line); border-radius: 12px; margin: 0 0 18px; padding: 18px 20px 16px; }
.step.broken { border: 2px solid #d0392b; }
.step.unverified { border-style: dashed; }
.step-head { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: baseline; justify-content: space-between; }
.step-head h2 { font-size: 20px; font-weight: 700; }
.step-head h2 .step-n { display: inline-block; margin-right: 10px; padding: 2px 8px; border-radius: 6px; background: var(--ink); color: #fff; font-size: 13px; font-weight: 700; letter-spacing: .03em; vertical-align: 3px; font-variant-numeric: tabular-nums; }
.step-meta { color: var(--muted); font-size: 13px; font-variant-numeric: tabular-nums; }
.url .chip { font-family: system-ui, sans-serif; margin-right: 6px; }
.url { margin: 6px 0 0; font-family: var(--mono); font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.step-body { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 4fr); gap: 20px; margin-top: 14px; }
figure.shot { margin: 0; }
figure.shot img { display: block; width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #fafafa; }
figure.shot figcaption, .no-shot { font-size: 12px; color: var(--muted); margin-top: 6px; }
.no-shot { border: 1px dashed var(--line); border-radius: 6px; padding: 28px 12px; text-align: center; margin: 0; background: #fafbfc; }
.no-shot.bad { border-color: var(--bad-line); color: var(--bad-ink); background: var(--bad-bg); }
.pictures.two { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; align-content: start; }
.fullpage-block { margin-top: 16px; }
figure.fullpage { margin: 0; }
figure.fullpage .scroll { max-height: 720px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; background: #fafafa; }
figure.fullpage img { display: block; max-width: 100%; height: auto; }
figure.fullpage figcaption { font-size: 12px; color: var(--muted); margin-top: 6px; }
.requests-block { margin-top: 16px; }
table.requests { font-size: 13px; table-layout: fixed; width: 100%; }
table.requests th, table.requests td { text-align: left; vertical-align: top; padding: 6px 8px; border-top: 1px solid var(--line); overflow-wrap: anywhere; }
table.requests th { font-size: 11.5px; font-weight: 700; letter-spacing: .05em; text-transform: uppercase; color: var(--muted); border-top: 0; }
table.requests th:nth-child(1) { width: 16%; } table.requests th:nth-child(2) { width: 11%; } table.requests th:nth-child(4) { width: 12%; } table.requests th:nth-child(5) { width: 18%; }
table.requests tr.refused td, table.requests tr.denied td { background: #fff7f6; }
table.requests .why { display: block; color: var(--muted); font-size: 12px; }
.step-info h3 { font-size: 12px; font-weight: 700; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); margin: 0 0 4px; }
.step-info > div + div { margin-top: 14px; }
.step-info p { margin: 0; }
.reasoning { margin: 0; padding: 8px 12px; border-left: 3px solid var(--info-line); background: #f7f9fd; border-radius: 0 6px 6px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
ul.plain { list-style: none; margin: 0; padding: 0; }
ul.plain li { margin: 3px 0; overflow-wrap: anywhere; }
ul.events li { margin: 0 0 8px; }
ul.events .ev-head { display: block; }
ul.events .ev-msg { display: block; margin-top: 2px; }
ul.events time { color: var(--faint); font-size: 12px; font-variant-numeric: tabular-nums; margin-left: 4px; }
ul.errors li { color: var(--bad-ink); }
.muted { color: var(--muted); }
.small { font-size: 12.5px; }
.tokens { font-variant-numeric: tabular-nums; }

table { border-collapse: collapse; width: 100%; }
table.actions { margin-top: 16px; font-size: 13.5px; table-layout: fixed; }
table.actions col.c-i { width: 34px; } table.actions col.c-what { width: 22%; } table.actions col.c-value { width: 20%; }
table.actions col.c-guard { width: 27%; } table.actions col.c-approval { width: 17%; } table.actions col.c-outcome { width: 14%; }
table.actions th, table.actions td { text-align: left; vertical-align: top; padding: 8px 10px; border-top: 1px solid var(--line); }
table.actions th { font-size: 11.5px; font-weight: 700; letter-spacing: .05em; text-transform: uppercase; color: var(--muted); border-top: 0; padding-top: 0; }
table.actions td { overflow-wrap: break-word; }
table.actions th { white-space: nowrap; }
table.actions td.i { color: var(--faint); font-variant-numeric: tabular-nums; }
table.actions .ms { color: var(--faint); font-size: 12px; white-space: nowrap; }
table.actions tr.block td { background: #fff7f6; }
table.actions tr.needs_approval td { background: #fffbf1; }
.why { display: block; color: var(--muted); font-size: 12.5px; margin-top: 3px; overflow-wrap: break-word; }
.value { display: block; margin-top: 2px; font-family: var(--mono); font-size: 12.5px; overflow-wrap: break-word; }
.none { color: var(--faint); }
details.page-text { margin-top: 12px; }
details.page-text summary { cursor: pointer; color: var(--muted); font-size: 13px; }
details.page-text pre { white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--mono); font-size: 12px; background: #fafbfc; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; max-height: 360px; overflow-y: auto; }
.step-foot { margin-top: 10px; font-size: 11.5px; color: var(--faint); font-family: var(--mono); overflow-wrap: anywhere; }
.problem { margin-top: 10px; }

/* Tables after the timeline */
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 6px 16px 10px; }
table.plain th, table.plain td { text-align: left; vertical-align: top; padding: 7px 8px; border-top: 1px solid var(--line); font-size: 13px; }
table.plain th { font-size: 11.5px; font-weight: 700; letter-spacing: .05em; text-transform: uppercase; color: var(--muted); border-top: 0; }
table.plain td.when { white-space: nowrap; font-variant-numeric: tabular-nums; }
table.plain td.num { text-align: right; font-variant-numeric: tabular-nums; }
.integrity p { margin: 10px 0; }
table.plain.hashes { margin-top: 10px; }
.totals { margin: 10px 0 0; }
.no-actions { margin: 14px 0 0; }
footer.page { margin-top: 30px; color: var(--faint); font-size: 12px; }

@media (max-width: 1100px) { .step-body { grid-template-columns: 1fr; } dl.facts { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
@media (max-width: 860px) {
  .layout { grid-template-columns: 1fr; }
  .layout { background: none; }
  nav.index { position: static; height: auto; border-bottom: 1px solid var(--line); background: #fbfbfc; }
  main { padding: 20px 16px 40px; }
  dl.facts { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
@media print {
  body { background: #fff; }
  .layout { display: block; }
  nav.index { display: none; }
  .step { break-inside: avoid-page; }
  details.page-text pre { max-height: none; }
}
`;
