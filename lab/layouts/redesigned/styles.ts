/** The redesigned look: a dense "e-services" dashboard with a left navigation and grid forms. */
export const REDESIGNED_CSS = `
*{box-sizing:border-box}body{margin:0;font:14px/1.4 "Segoe UI",Roboto,Helvetica,sans-serif;color:#222;background:#eef1f5}
.topbar{background:linear-gradient(90deg,#123b6d,#1f5fa8);color:#fff;display:flex;align-items:center;gap:20px;padding:0 20px;height:56px}
.topbar .brand{font-weight:600;font-size:16px}.topbar .grow{flex:1}.topbar a{color:#fff}
.topbar form{margin:0}.topbar button{background:#ffffff22;border:0;color:#fff;padding:6px 12px;border-radius:3px;cursor:pointer}
.shell{display:flex;min-height:calc(100vh - 56px)}
.side{width:230px;background:#fff;border-right:1px solid #d5dbe3;padding:16px 0}
.side h2{font-size:12px;text-transform:uppercase;color:#6b7785;margin:0 16px 8px}
.side ol{list-style:none;margin:0;padding:0}.side li a{display:block;padding:8px 16px;color:#123b6d;text-decoration:none}
.side li a[aria-current]{background:#e3ecf8;border-left:3px solid #1f5fa8;font-weight:600}.side .done{color:#2e7d32;margin-left:4px}
.content{flex:1;padding:20px 28px 60px;max-width:980px}
.card{background:#fff;border:1px solid #d5dbe3;border-radius:4px;padding:18px 22px;margin-bottom:18px}
h1{font-size:22px;font-weight:600;margin:4px 0 14px}.crumb{color:#6b7785;font-size:13px;margin:0}
table.grid{border-collapse:collapse;width:100%}table.grid th,table.grid td.lbl{width:34%;text-align:left;font-weight:500;padding:8px 10px 8px 0;vertical-align:top;color:#333}
table.grid td{padding:6px 0;vertical-align:top}table.grid tr+tr{border-top:1px solid #eef1f5}
table.cols{border-collapse:collapse;width:100%}table.cols th{text-align:left;font-weight:500;padding:4px 8px 4px 0}table.cols td{padding:0 8px 0 0}
.in,select.in{font:inherit;padding:6px 8px;border:1px solid #b8c2cf;border-radius:3px;width:100%;max-width:420px;background:#fff}
.in[aria-invalid=true]{border-color:#c62828;background:#fff6f6}
fieldset.inline{border:0;margin:0;padding:0}fieldset.inline legend{font-weight:500;padding:0;margin-bottom:4px}
.opts{display:flex;flex-wrap:wrap;gap:4px 18px}.opts label{display:flex;gap:6px;align-items:center}
.field-error{color:#c62828;margin:0 0 4px;font-size:13px}
.error-summary{background:#fdecea;border:1px solid #f5c2c0;color:#8a1c1c;padding:10px 14px;border-radius:4px;margin-bottom:14px}
.error-summary h2{font-size:15px;margin:0 0 4px}.error-summary a{color:#8a1c1c}
.notice{background:#e8f5e9;border:1px solid #b7dfba;padding:10px 14px;border-radius:4px;margin-bottom:14px}
.toolbar{display:flex;gap:8px;align-items:center;margin-top:18px;padding-top:14px;border-top:1px solid #d5dbe3}
.btn{font:inherit;border:0;border-radius:3px;padding:8px 16px;cursor:pointer;display:inline-block;text-decoration:none;user-select:none}
.btn-primary{background:#1f5fa8;color:#fff}.btn-light{background:#fff;border:1px solid #b8c2cf;color:#123b6d}
.btn-grey{background:#9aa3ad;color:#fff}.spacer{flex:1}
.icon-btn{background:#fff;border:1px solid #b8c2cf;border-radius:3px;width:34px;height:34px;padding:0;cursor:pointer;display:inline-flex;align-items:center;justify-content:center}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:14px}
.tile{background:#fff;border:1px solid #d5dbe3;border-radius:4px;padding:16px}.tile a{font-weight:600;color:#123b6d}
table.data{border-collapse:collapse;width:100%;background:#fff}table.data th,table.data td{border:1px solid #d5dbe3;padding:6px 8px;text-align:left}
table.data th{background:#f5f7fa}.ok{background:#2e7d32;color:#fff;padding:16px 20px;border-radius:4px}
.field{margin:0 0 14px}.label{display:block;font-weight:500;margin-bottom:4px}.actions{display:flex;gap:8px;margin-top:14px}
.ok h1{color:#fff;margin:0 0 6px}.ok h2{margin:0;font-size:17px}.decl{background:#fff8e1;padding:8px 10px;border-radius:3px}
`;
