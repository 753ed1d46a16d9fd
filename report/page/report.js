// The timeline: rows drawn on demand (a virtual list), filters, search,
// the trace tree, the waterfall, the lanes, export, and the detail pane of
// one event. Every string of the data is placed with textContent.
performance.mark('afr-script');
var D=unpack('#rows-data');
// The columns packed as differences (report.rowsData.delta), summed back.
(function(){var i;
  for(i=1;i<D.seq.length;i++){D.seq[i]+=D.seq[i-1];D.call[i]+=D.call[i-1];}
  for(i=1;i<D.callAt.length;i++)D.callAt[i]+=D.callAt[i-1];
  for(i=0;i<D.parent.length;i++)D.parent[i]=D.parent[i]?i-D.parent[i]:-1;})();
performance.mark('afr-data');
// The details come after this script in the page: they are read when an
// event is first opened or the search first needs them, once the page is
// loaded.
var X=null;
function details(){
  return new Promise(function(ok){
    if(document.readyState!=='loading')ok();else document.addEventListener('DOMContentLoaded',function(){ok();});
  }).then(function(){return X||(X=unpack('.detail-data'));});
}
var N=D.seq.length,H=26;
// The rows' summaries, decoded a block at a time when first needed. The
// first block comes before this script, the others after it: a row of a
// block not read yet shows none until the page is read (then the rows in
// view are drawn again).
var whatData=document.getElementsByClassName('what-data'),whats=[],whatLater=false,lastWhat=Math.ceil(N/D.whatBlock)-1;
// Whether block k is read whole: the first one is (it comes before this
// script); another once the element after it has begun, or the page is read.
function whatRead(k){
  if(k===0||document.readyState!=='loading')return !!whatData[k];
  return !!(whatData[k+1]||k===lastWhat&&document.querySelector('.detail-data'));
}
function what(i){var k=(i/D.whatBlock)|0;
  if(!whats[k]){if(!whatRead(k)){whatLater=true;return '';}whats[k]=unpack([whatData[k]]);}
  return whats[k][i-k*D.whatBlock];}
document.addEventListener('DOMContentLoaded',function(){if(whatLater){whatLater=false;hay=null;render();}});
function $(id){return document.getElementById(id);}
function el(tag,cls,txt){var e=document.createElement(tag);if(cls)e.className=cls;if(txt!=null)e.textContent=String(txt);return e;}
// The first event of each call: its lowest seq, and its row.
var head=[],headRow=[];
for(var i=0;i<N;i++){var j=D.call[i];if(j>=0&&!(head[j]<=D.seq[i])){head[j]=D.seq[i];headRow[j]=i;}}
var rowOf={};for(i=0;i<N;i++)rowOf[D.seq[i]]=i;
function isoOf(ms){return new Date(D.t0+ms).toISOString().replace('T',' ').slice(0,23);}
// The columns: the date only when the events span more than one day (else
// it heads the time column), the run only when some event has one.
var oneDay=!N||isoOf(0).slice(0,10)===isoOf(D.time[N-1]).slice(0,10),runs=D.runs.some(function(r){return r!=='';});
(function(){var tl=$('timeline');
  tl.style.setProperty('--cols',['5.5em',oneDay?'8em':'12.5em','6em',runs?'7em':'','6.5em 6em 7.5em 8em 8em minmax(0,1fr)'].join(' '));
  if(!runs)tl.classList.add('no-runs');
  if(oneDay&&N){$('time-head').textContent=isoOf(0).slice(0,10);$('time-head').title='the events\u2019 day; times are UTC';}})();
function timeText(ms){return oneDay?isoOf(ms).slice(11):isoOf(ms);}
// The event at row i of the time order, from the data's columns.
function ev(i){return {i:i,s:D.seq[i],e:D.epoch[i],t:isoOf(D.time[i]),
  k:D.kinds[D.kind[i]],a:D.agents[D.agent[i]],r:D.runs[D.run[i]],o:D.tools[D.tool[i]],m:what(i),x:D.tx[i],g:D.flags[i],q:D.proofs[i],
  imp:!!D.imported[i],ed:D.edits[i],st:D.status[i]>=0?D.statuses[D.status[i]]:'',c:D.call[i]>=0?call(D.call[i]):null};}
function call(j){return {j:j,head:head[j],status:D.statuses[D.callStatus[j]],ms:D.callMs[j],out:D.callOut[j]};}
// The events of call c, in seq order.
function callEvents(c){var s=[];for(var i=0;i<N;i++)if(D.call[i]===c.j)s.push(D.seq[i]);return s.sort(function(a,b){return a-b;});}
function duration(ms){return ms<1000?ms+' ms':ms<6e4?(ms/1000).toFixed(2)+' s':(ms/6e4).toFixed(1)+' min';}
// A call's status and duration, as its rows show them.
function callText(c){return c.status+(c.ms>=0?', '+duration(c.ms):'');}

// The trace tree from parent links: each event under its first causal
// parent in the log, children in time order; its depth-first order and
// each row's depth. A chain (an event its parent's only child: the next
// turn of a conversation) stays at its parent's depth; a parent with more
// than one child indents them.
var tree=null;
function treeOrder(){
  if(tree)return tree;
  var kids=[],roots=[],depth=new Int32Array(N),order=[];
  for(var i=0;i<N;i++){var p=D.parent[i];if(p>=0){(kids[p]||(kids[p]=[])).push(i);}else roots.push(i);}
  var stack=roots.slice().reverse();
  while(stack.length){var r=stack.pop();order.push(r);var k=kids[r]||[];
    for(var j=k.length-1;j>=0;j--){depth[k[j]]=Math.min(depth[r]+(k.length>1?1:0),30);stack.push(k[j]);}}
  return tree={order:order,depth:depth};
}

var box=$('rows'),spacer=$('spacer'),tl=$('timeline'),detail=$('detail'),count=$('f-count'),
    text=$('f-text'),calls=$('f-calls'),order=$('f-view'),lanesBy=$('f-lanes'),rangeText=$('f-range');
var filters=[].slice.call(document.querySelectorAll('select[data-filter]'));
var cols={kind:[D.kind,D.kinds],agent:[D.agent,D.agents],run:[D.run,D.runs],tool:[D.tool,D.tools],status:[D.status,D.statuses]};
var shown=[],selected=null,hay=null,hayFull=false,from=null,to=null;
// The time window in view (milliseconds after t0), of the lanes and the
// waterfall.
// It covers the events, and the ends of the calls that start among them.
var span0=N?Math.max(1,D.time[N-1]):1;
for(i=0;i<D.callAt.length;i++)if(D.callAt[i]>=0&&D.callAt[i]<=span0&&D.callMs[i]>0)span0=Math.max(span0,D.callAt[i]+D.callMs[i]);
var T={D:D,N:N,headRow:headRow,v0:0,v1:span0};
function epochOf(ev){return ev.e>=0?D.epochs[ev.e]:null;}
function anchorOf(ev){var ep=epochOf(ev);return ep?ep.st:'unsealed';}
// The text the search looks in: a row's columns, and, once the details are
// read, its payload (arguments, outputs, content) and its diff.
function haystack(){
  if(hay&&(hayFull||!X))return hay;
  hay=[];hayFull=!!X;
  for(var i=0;i<N;i++){var e=ev(i),c=e.c;
    hay.push([e.s,e.t,e.a,e.r,e.k,e.o,e.m,e.x||'',e.ed||'',c?c.status+' '+c.out:'',X?X.payloads[i]:'',X&&X.diffs[i]||''].join(' ').toLowerCase());}
  return hay;
}
// The rows that pass the filters, in the order chosen.
function apply(){
  var t=text.value.toLowerCase(),one=calls.checked,want=filters.map(function(s){var c=cols[s.dataset.filter];return [c[0],s.value?c[1].indexOf(s.value):-1];});
  if(t&&!X)details().then(function(){if(text.value)apply();});
  var h=t?haystack():null,rows=order.value==='tree'?treeOrder().order:null;
  shown=[];
  for(var k=0;k<N;k++){var i=rows?rows[k]:k,ok=true;
    for(var f=0;f<want.length&&ok;f++)if(want[f][1]>=0&&want[f][0][i]!==want[f][1])ok=false;
    if(ok&&one&&D.call[i]>=0&&head[D.call[i]]!==D.seq[i])ok=false;
    if(ok&&from!==null&&(D.time[i]<from||D.time[i]>to))ok=false;
    if(ok&&t&&h[i].indexOf(t)<0)ok=false;
    if(ok)shown.push(i);}
  if(order.value==='agent'||order.value==='run'){var c=order.value==='run'?D.run:D.agent,l=order.value==='run'?D.runs:D.agents;
    shown.sort(function(x,y){var p=l[c[x]],q=l[c[y]];return p<q?-1:p>q?1:x-y;});}
  tl.dataset.rows=shown.length;
  if(from!==null){tl.dataset.from=Math.round(from);tl.dataset.to=Math.round(to);}else{delete tl.dataset.from;delete tl.dataset.to;}
  count.textContent=shown.length+' of '+N+' events'+(t&&!hayFull?' (searching the payloads once they are read…)':'');
  rangeText.hidden=from===null;
  if(from!==null)$('f-range-text').textContent=isoOf(from)+' – '+isoOf(to).slice(11);
  spacer.style.height=(shown.length*H)+'px';
  render();lanes.draw();
}
// Only the rows in view (and a few around them) are in the document.
function render(){
  var first=Math.max(0,Math.floor(box.scrollTop/H)-10),last=Math.min(shown.length,first+Math.ceil(box.clientHeight/H)+20);
  var old=box.querySelectorAll('.event');for(var j=0;j<old.length;j++)old[j].remove();
  var f=document.createDocumentFragment();
  for(var i=first;i<last;i++)f.appendChild(row(ev(shown[i]),i));
  box.appendChild(f);
}
function row(ev,i){
  var r=el('div','row event'+(ev.g?' flagged':'')+(ev.s===D.causal?' target':'')+(selected!==null&&ev.i===selected?' selected':'')+
    (ev.k==='response'||ev.k==='reasoning'?' message':''));
  r.style.top=(i*H)+'px';
  r.dataset.seq=ev.s;r.dataset.kind=ev.k;r.dataset.agent=ev.a;r.dataset.run=ev.r;r.dataset.tool=ev.o;r.dataset.status=ev.st;
  r.dataset.origin=ev.imp?'imported':'observed';
  var seq=el('span','seq',ev.s);
  if(order.value==='tree'){var d=treeOrder().depth[ev.i],p=D.parent[ev.i];r.dataset.depth=d;seq.style.paddingLeft=(d*8)+'px';
    if(p>=0){seq.textContent=(d>treeOrder().depth[p]?'└':'│')+' '+ev.s;seq.title='parent: event '+D.seq[p];}}
  var an=anchorOf(ev),ep=el('span');
  ep.append(el('span','',an==='unsealed'?'–':epochOf(ev).n),' ',el('span','badge '+an,an));
  var cl=el('span','call');
  if(ev.c)cl.textContent=ev.c.head===ev.s?callText(ev.c):'↳ call of '+ev.c.head;else if(ev.st)cl.textContent=ev.st;
  if(ev.c)cl.dataset.status=ev.c.status;
  var what=el('span','what');
  what.append(el('span','badge '+(ev.imp?'imported':'observed'),ev.imp?'imported':'observed'),' ');
  (ev.g||[]).forEach(function(g){what.append(el('span','badge flag',D.findingKinds[g]),' ');});
  if(ev.ed)what.append(el('span','badge edit','edit '+ev.ed),' ');
  if(ev.c&&ev.c.out&&ev.c.head===ev.s)what.append('→ '+ev.c.out+'; ');
  what.append(ev.m||'');if(ev.x)what.append(' tx '+ev.x);
  what.title=what.textContent;
  var tm=el('span','mono',timeText(D.time[ev.i]));tm.title=ev.t+' UTC';
  var cells=[seq,tm,el('span','',ev.a),el('span','c-run',ev.r||''),el('span','',ev.k),el('span','',ev.o||''),ep,cl,waterfall(ev),what];
  cells.forEach(function(c,k){if(k>1&&k<6&&c.textContent)c.title=c.textContent;});
  r.append.apply(r,cells);
  r.onclick=function(){select(ev);};
  return r;
}
// A row's place in the waterfall: its call's bar (start and duration) in
// the time window in view, or a tick at its time.
function waterfall(ev){
  var w=el('span','wf'),b=el('i'),s=T.v1-T.v0;
  if(ev.c&&ev.c.head===ev.s&&ev.c.ms>=0){var a=D.callAt[ev.c.j];
    b.className='bar '+(ev.c.status==='ok'?'ok':ev.c.status==='failed'?'failed':'other');
    b.style.left=((a-T.v0)/s*100)+'%';b.style.width=Math.max(0.5,ev.c.ms/s*100)+'%';b.dataset.ms=ev.c.ms;
  }else{b.className='tick';b.style.left=((D.time[ev.i]-T.v0)/s*100)+'%';}
  w.append(b);return w;
}
var frame=0;box.onscroll=function(){if(!frame)frame=requestAnimationFrame(function(){frame=0;render();});};
filters.concat([calls,order]).forEach(function(s){s.onchange=apply;});text.oninput=apply;
lanesBy.onchange=function(){lanes.layout(lanesBy.value);lanes.draw();};
T.shown=function(){return shown;};
T.selected=function(){return selected;};
T.show=function(seq){show(seq,true);};
// view sets the time window in view; range filters the timeline to a time
// range and views it (null: everything).
T.view=function(a,b){T.v0=a;T.v1=Math.max(a+1,b);render();lanes.draw();};
T.range=function(a,b){from=a;to=b;if(a===null){T.v0=0;T.v1=span0;}else{T.v0=a;T.v1=Math.max(a+1,b);}apply();};
$('f-range-clear').onclick=function(){T.range(null,null);};
$('zoom-in').onclick=function(){lanes.zoom(0.5,0.5);};
$('zoom-out').onclick=function(){lanes.zoom(2,0.5);};
$('zoom-reset').onclick=function(){T.view(from===null?0:from,from===null?span0:to);};
var lanes=Lanes($('lanes'),$('lane-labels'),$('brush'),T);
lanes.layout(lanesBy.value);
window.addEventListener('resize',function(){lanes.draw();});

// The proof of the event at row i: the bundle's, or read off its epoch's
// tree, built once per epoch from the epoch's leaves.
var trees={};
function proofOf(ev){
  var ep=epochOf(ev);if(!ep)return Promise.resolve(null);
  if(ev.q)return Promise.resolve({d:ev.q.d,i:ev.q.i,path:digests(ev.q.p).map(bytes),ep:ep});
  if(!X.leaves[ev.e])return Promise.resolve(null);
  var ds=digests(X.leaves[ev.e]),i=ev.s-ep.f;
  return (trees[ev.e]||(trees[ev.e]=levels(ds))).then(function(lv){return {d:ds[i],i:i,path:auditPath(i,lv),ep:ep};});
}
function proofPane(ev){
  if(!window.crypto||!crypto.subtle)return Promise.resolve(el('p','muted','No inclusion proof checked: this browser offers no SHA-256 to pages opened this way (Web Crypto needs a page opened from a file or over https).'));
  return proofOf(ev).then(function(p){
    if(!p)return el('p','muted','No inclusion proof: the event is not in a sealed epoch whose records are all present.');
    return verifyPath(p.d,p.i,p.ep.c,p.path,p.ep.m).then(function(ok){
      var div=el('div','proof mono');div.dataset.verified=ok;
      div.append(el('div',ok?'ok':'bad',ok?'The audit path leads to the epoch\u2019s Merkle root: the event is included.':'The audit path does NOT lead to the epoch\u2019s Merkle root.'),
        el('div','','record digest 0x'+p.d),el('div','','leaf '+p.i+' of '+p.ep.c+' in epoch '+p.ep.n+'; Merkle root '+p.ep.m),
        el('div','','epoch root R_t '+p.ep.r),el('div','','audit path:'+(p.path.length?'':' (empty: the only leaf)')));
      p.path.forEach(function(h){div.append(el('div','path','\u00a0\u00a00x'+hexOf(h)));});
      return div;
    });
  });
}
// Shows the event of row ev in the detail pane: at once what its row
// holds, then, once the details are read, its call's panes (input, output,
// diff, on-chain call), its payload and its proof (data-loaded).
function select(ev){
  selected=ev.i;detail.hidden=false;detail.replaceChildren();detail.dataset.seq=ev.s;delete detail.dataset.loaded;
  detail.append(el('h2','','Event '+ev.s+': '+ev.k+(ev.o?' '+ev.o:'')),
    el('p','muted',ev.t+' UTC, agent '+ev.a+(ev.r?', run '+ev.r:'')+', epoch '+(epochOf(ev)?epochOf(ev).n:'unsealed')+' ('+anchorOf(ev)+')'));
  (ev.g||[]).forEach(function(g){var li=document.querySelectorAll('#findings li.finding')[g],p=el('p','finding-of');
    p.append(el('span','badge flag',D.findingKinds[g]),' ',li?li.querySelector('.ftext').textContent:'');detail.append(p);});
  if(ev.x)detail.append(el('div','mono','tx '+ev.x));
  detail.append(el('p','origin',ev.imp?'Imported (ext "import"): recorded from another tool\u2019s trajectory, not observed by the recorder.':'Observed by the recorder.'));
  if(ev.c){var cp=el('p','callinfo','Call '+callText(ev.c)+'; its events: ');
    callEvents(ev.c).forEach(function(s){var b=el('button','',s);b.onclick=function(){show(s);};cp.append(b,' ');});
    detail.append(cp);}
  var wait=el('p','muted','Reading the payload and the proof…');detail.append(wait);
  render();lanes.draw();
  details().then(function(){
    if(selected!==ev.i)return;
    var p=X.payloads[ev.i];
    if(X.recorded[ev.i]!=null)detail.insertBefore(el('p','muted','The time is the source\u2019s (event_time); the recorder wrote the event at '+isoOf(X.recorded[ev.i])+' UTC.'),wait);
    panes(ev).forEach(function(n){detail.insertBefore(n,wait);});
    detail.insertBefore(el('h3','','Payload'),wait);
    detail.insertBefore(p?el('pre','payload',JSON.stringify(JSON.parse(p),null,2)):el('p','muted','Payload '+D.missing+'.'),wait);
    detail.insertBefore(el('h3','','Inclusion proof'),wait);
    return proofPane(ev).then(function(n){if(selected!==ev.i)return;wait.replaceWith(n);detail.dataset.loaded='1';});
  });
}
// The panes of an event's call (or of the event alone): the input (the
// intent's arguments), the output (text, JSON shown pretty, or the size
// and digest when only they were kept) or error, the diff of a file edit,
// and an on-chain call decoded with its outcome, effects and gas.
function panes(ev){
  var seqs=ev.c?callEvents(ev.c):[ev.s],intent=null,x=null,effects=[],gas=null,diffs=[],out=[];
  seqs.forEach(function(s){var i=rowOf[s],p=X.payloads[i];if(X.diffs[i])diffs.push(X.diffs[i]);if(!p)return;p=JSON.parse(p);
    if(p.intent&&!intent)intent=p.intent;if(p.execution&&!x)x=p.execution;if(p.effects)effects=effects.concat(p.effects);
    if(p.ext&&p.ext['chain.gas_used']!=null)gas=p.ext['chain.gas_used'];});
  if(ev.c||intent){var io=el('div','io');
    io.append(el('h3','','Input'),intent?el('pre','input',JSON.stringify(intent.args||{},null,2)):el('p','muted','No intent recorded, or its payload was not opened.'),el('h3','','Output'));
    if(!x)io.append(el('p','muted','No outcome recorded.'));
    else if(x.output&&x.output.text!=null&&!x.output.digest)io.append(el('pre','output',pretty(x.output.text)));
    else if(x.output)io.append(el('p','output',x.output.size+' bytes, kept as digest '+x.output.digest));
    else if(x.output_digest)io.append(el('p','output','Kept as digest '+x.output_digest+'.'));
    else io.append(el('p','output',x.error?'Error: '+x.error:'No output recorded (status '+(x.status||'')+').'));
    out.push(io);}
  diffs.forEach(function(d){out.push(el('h3','','Diff'),diffPane(d));});
  if(intent&&(intent.chain_id||intent.target)||x&&x.tx_hash||effects.length)out.push(chainPane(intent,x,effects,gas));
  return out;
}
function pretty(t){try{return JSON.stringify(JSON.parse(t),null,2);}catch(e){return t;}}
// A unified diff, one element per line, coloured by its first character.
function diffPane(d){
  var pre=el('pre','diff');
  d.split('\n').forEach(function(l){
    var c=/^(\+\+\+|---|\*\*\*) /.test(l)||l.indexOf('diff --git')===0||l.indexOf('*** ')===0?'file':l[0]==='+'?'add':l[0]==='-'?'del':l.indexOf('@@')===0?'hunk':'';
    pre.append(el('span',c,l+'\n'));});
  return pre;
}
// An on-chain call: the function and its arguments as the recorder
// decoded them, the target, the value in wei, the calldata's selector;
// the transaction, its status and gas; and its effects.
function chainPane(intent,x,effects,gas){
  var div=el('div','chain');div.append(el('h3','','On-chain call'));
  if(intent){
    var args=intent.args||{},m=/^([^(]*)\((.*)\)$/.exec(intent.tool||''),sig=el('pre','decoded');
    sig.textContent=(m?m[1]:intent.tool)+'('+ordered(args,m?types(m[2]):[]).map(function(n){var a=args[n];return a&&a.type?a.type+' '+n+' = '+fmt(a.value):n+' = '+fmt(a);}).join(',\n  ')+')';
    div.append(sig);
    var t=el('p','mono','');
    t.textContent=(intent.target?'to '+intent.target:'')+(intent.chain_id?' on chain '+intent.chain_id:'')+
      (intent.value?', value '+BigInt(intent.value).toString()+' wei':'')+
      (intent.data?', calldata '+((intent.data.length-2)/2)+' bytes, selector '+intent.data.slice(0,10):'');
    div.append(t);
  }
  if(x)div.append(el('p','mono',(x.tx_hash?'tx '+x.tx_hash+' in block '+x.block+', ':'')+'status '+x.status+(gas!=null?', gas used '+gas:'')+(x.error?': '+x.error:'')));
  if(effects.length){var ul=el('ul','effects');
    effects.forEach(function(f){ul.append(el('li','mono',effectText(f)));});
    div.append(el('h3','','Effects ('+effects.length+')'),ul);}
  return div;
}
// The types of a signature's parameter list, split at its top-level
// commas (a tuple's own commas are inside parentheses).
function types(list){var out=[],d=0,cur='';
  for(var i=0;i<list.length;i++){var c=list[i];if(c==='('||c==='[')d++;if(c===')'||c===']')d--;if(c===','&&!d){out.push(cur);cur='';}else cur+=c;}
  if(cur)out.push(cur);return out;}
// The names of a decoded call's arguments in the order of its signature:
// the recorded arguments are named, not ordered, so each type takes the
// first unused argument of that type; the rest follow by name.
function ordered(args,ts){var names=Object.keys(args).sort(),used={},out=[];
  ts.forEach(function(t){var n=names.find(function(n){return !used[n]&&args[n]&&args[n].type===t;});if(n){used[n]=1;out.push(n);}});
  return out.concat(names.filter(function(n){return !used[n];}));}
function fmt(v){return typeof v==='string'?v:JSON.stringify(v);}
function effectText(f){
  if(f.chain_state)return (f.chain_state.slot?'storage '+f.chain_state.address+' slot '+f.chain_state.slot:'balance of '+f.chain_state.address)+': '+(f.chain_state.before||'0x')+' → '+(f.chain_state.after||'0x');
  if(f.chain_log)return 'log of '+f.chain_log.address+(f.chain_log.topics?' topic0 '+f.chain_log.topics[0]+' ('+f.chain_log.topics.length+' topics)':'')+(f.chain_log.data?', '+((f.chain_log.data.length-2)/2)+' bytes of data':'');
  if(f.file_write)return 'file '+f.file_write.path+': '+(f.file_write.before||'(created)')+' → '+(f.file_write.after||'(deleted)');
  if(f.api_call)return f.api_call.method+' '+f.api_call.url+(f.api_call.status?' → '+f.api_call.status:'');
  if(f.db_change)return f.db_change.operation+' '+f.db_change.database+(f.db_change.table?'.'+f.db_change.table:'')+(f.db_change.rows?', '+f.db_change.rows+' rows':'');
  return JSON.stringify(f);
}
// Scrolls the timeline to the event seq and selects it, clearing the
// filters that hide it; the page scrolls to the timeline unless stay.
function show(seq,stay){
  var i=rowOf[seq];if(i===undefined)return;
  var at=shown.indexOf(i);
  if(at<0){filters.forEach(function(s){s.value='';});text.value='';calls.checked=false;from=to=null;T.v0=0;T.v1=span0;apply();at=shown.indexOf(i);}
  box.scrollTop=at*H-box.clientHeight/2;select(ev(i));if(!stay)tl.scrollIntoView({block:'start'});
}
document.querySelectorAll('#causal .node').forEach(function(g){
  g.style.cursor='pointer';g.onclick=function(){show(Number(g.dataset.seq));};
});
document.querySelectorAll('#findings .goto').forEach(function(b){b.onclick=function(){show(Number(b.dataset.seq));};});

// Export of the rows that pass the filters, as JSON Lines (with each
// payload, when it was opened) or CSV (one line per row, the columns of
// the timeline). A CSV cell that a spreadsheet would read as a formula
// (=, +, -, @, tab, carriage return first) starts with a quote: the texts
// are the agent's.
function exportRows(kind){
  return details().then(function(){
    var lines=[],head=['seq','time','agent','run','kind','tool','epoch','anchor','origin','call','status','duration_ms','tx','findings','edit','what'];
    if(kind==='csv')lines.push(head.join(','));
    shown.forEach(function(i){var e=ev(i),c=e.c,ep=epochOf(e);
      var r={seq:e.s,time:new Date(D.t0+D.time[i]).toISOString(),agent:e.a,run:e.r,kind:e.k,tool:e.o,epoch:ep?ep.n:null,anchor:anchorOf(e),
        origin:e.imp?'imported':'observed',call:c?c.head:null,status:e.st||null,duration_ms:c&&c.head===e.s&&c.ms>=0?c.ms:null,
        tx:e.x||null,findings:(e.g||[]).map(function(g){return D.findingKinds[g];}),edit:e.ed||null,what:e.m};
      if(kind==='csv')lines.push(head.map(function(k){return csvCell(Array.isArray(r[k])?r[k].join(' '):r[k]);}).join(','));
      else{r.payload=X.payloads[i]?JSON.parse(X.payloads[i]):null;lines.push(JSON.stringify(r));}});
    return lines.join(kind==='csv'?'\r\n':'\n')+(lines.length?(kind==='csv'?'\r\n':'\n'):'');
  });
}
function csvCell(v){
  if(v===null||v===undefined)return '';
  var s=String(v);if(/^[=+\-@\t\r]/.test(s))s="'"+s;
  return /[",\r\n]/.test(s)?'"'+s.replace(/"/g,'""')+'"':s;
}
function download(kind){
  exportRows(kind).then(function(s){
    var a=el('a'),url=URL.createObjectURL(new Blob([s],{type:kind==='csv'?'text/csv':'application/x-ndjson'}));
    a.href=url;a.download='afr-report-rows.'+(kind==='csv'?'csv':'jsonl');document.body.append(a);a.click();a.remove();
    setTimeout(function(){URL.revokeObjectURL(url);},60e3);
  });
}
$('export-jsonl').onclick=function(){download('jsonl');};
$('export-csv').onclick=function(){download('csv');};
window.afrExport=exportRows;
window.afrShow=function(seq){show(seq);};
apply();
performance.mark('afr-rows');
