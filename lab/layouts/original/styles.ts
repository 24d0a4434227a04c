/** The original look: a plain, tidy government service page. */
export const ORIGINAL_CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 Arial,Helvetica,sans-serif;color:#0b0c0c;background:#fff}
.header{background:#0b0c0c;color:#fff;padding:10px 30px;display:flex;justify-content:space-between;align-items:center}
.header .dept{font-weight:bold;font-size:18px}.header form{margin:0}
.header button{background:none;border:1px solid #fff;color:#fff;padding:4px 10px;cursor:pointer}
.service{background:#1d70b8;color:#fff;padding:8px 30px;font-size:20px;font-weight:bold}
.service a{color:#fff;text-decoration:none}
main{max-width:760px;margin:0 auto;padding:20px 30px 60px}
h1{font-size:32px;margin:10px 0 20px}.step{color:#505a5f;font-size:19px;margin:20px 0 0}
.field{margin:0 0 24px}.label,legend{display:block;font-weight:bold;margin-bottom:4px}
.hint{color:#505a5f;margin:0 0 6px}.req{color:#d4351c}
.input,select{font:inherit;padding:6px;border:2px solid #0b0c0c;width:100%;max-width:480px}
input[type=date]{max-width:220px}
fieldset{border:0;padding:0;margin:0}.radio,.checkbox{margin:6px 0;display:flex;gap:8px;align-items:center}
.radio input,.checkbox input{width:22px;height:22px}
.field--error{border-left:5px solid #d4351c;padding-left:15px}.field-error{color:#d4351c;font-weight:bold;margin:0 0 6px}
.error-summary{border:5px solid #d4351c;padding:15px 20px;margin:0 0 30px}.error-summary h2{margin:0 0 10px}
.error-summary a{color:#d4351c;font-weight:bold}
.notice{border-left:6px solid #00703c;background:#eef7f1;padding:12px 16px;margin:0 0 24px}
.declaration{background:#f3f2f1;padding:16px;margin:0 0 24px}
.actions{display:flex;gap:16px;align-items:center;margin-top:30px}
.button{font:inherit;font-weight:bold;background:#00703c;color:#fff;border:0;padding:10px 18px;cursor:pointer;box-shadow:0 2px 0 #002d18;text-decoration:none;display:inline-block}
.button--secondary{background:#f3f2f1;color:#0b0c0c;box-shadow:0 2px 0 #929191}
.back{display:inline-block;margin-top:10px;color:#0b0c0c}
dl.summary{margin:0 0 30px}.summary div{display:flex;border-bottom:1px solid #b1b4b6;padding:8px 0}
.summary dt{font-weight:bold;width:40%}.summary dd{margin:0;width:45%}.summary .change{width:15%;text-align:right}
.panel{background:#00703c;color:#fff;text-align:center;padding:30px;margin:0 0 30px}.panel h1{margin:0 0 10px}
table.list{border-collapse:collapse;width:100%}table.list th,table.list td{border-bottom:1px solid #b1b4b6;padding:8px;text-align:left}
.links li{margin:8px 0}.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
`;
