// The lanes: one line per agent (or per run) across the time window in
// view, each call a bar of its duration coloured by its status, each
// other event a tick, drawn on a canvas (a hundred thousand marks in a few
// milliseconds). The wheel zooms around the pointer, a drag brushes a time
// range (the timeline then shows only its events), a click opens the
// nearest event, a double click shows everything again.
function Lanes(canvas,labels,brush,T){
  var LH=16,AX=18,ctx=canvas.getContext('2d'),names=[],lane=null,w=0,dpr=window.devicePixelRatio||1;
  var colors={ok:'#2e8b57',failed:'#c0392b','denied by policy':'#d68910','denied at approval':'#d68910','no outcome recorded':'#99a3a4'},
      kindColors={observation:'#5d6d7e',response:'#2471a3',reasoning:'#8e44ad',chain_tx:'#b9770e',policy:'#d68910',approval:'#16a085',delegation:'#8e44ad'};
  // The lane of every row, by key ('agent' or 'run'): one per name, the
  // busiest MAX-1 of them when there are more, and one lane for the rest.
  var MAX=40;
  function layout(key){
    var col=key==='run'?T.D.run:T.D.agent,list=key==='run'?T.D.runs:T.D.agents,n=new Int32Array(list.length),first=new Int32Array(list.length).fill(-1);
    for(var i=0;i<T.N;i++){var c=col[i];n[c]++;if(first[c]<0)first[c]=i;}
    var ids=[];for(var c=0;c<list.length;c++)if(n[c])ids.push(c);
    if(ids.length>MAX)ids=ids.sort(function(a,b){return n[b]-n[a]||first[a]-first[b];}).slice(0,MAX-1);
    ids.sort(function(a,b){return first[a]-first[b];});
    var laneOf=new Int32Array(list.length).fill(ids.length),rest=0;
    ids.forEach(function(c,l){laneOf[c]=l;});
    names=ids.map(function(c){return list[c]||'(none)';});
    for(c=0;c<list.length;c++)if(n[c]&&laneOf[c]===ids.length)rest++;
    if(rest)names.push('(the other '+rest+' '+(key==='run'?'runs':'agents')+')');
    lane=new Int32Array(T.N);for(i=0;i<T.N;i++)lane[i]=laneOf[col[i]];
    labels.replaceChildren();
    names.forEach(function(n,l){var d=document.createElement('div');d.className='lane'+(rest&&l===names.length-1?' rest':'');d.dataset.lane=n;d.textContent=n;d.title=n;labels.append(d);});
    canvas.dataset.lanes=names.length;
  }
  function x(t){return (t-T.v0)/(T.v1-T.v0)*w;}
  function t(px){return T.v0+px/w*(T.v1-T.v0);}
  function draw(){
    w=canvas.parentNode.clientWidth-labels.offsetWidth-2;if(w<50)w=50;
    var h=AX+names.length*LH;
    canvas.width=w*dpr;canvas.height=h*dpr;canvas.style.width=w+'px';canvas.style.height=h+'px';
    ctx.setTransform(dpr,0,0,dpr,0,0);ctx.clearRect(0,0,w,h);
    canvas.dataset.v0=Math.round(T.v0);canvas.dataset.v1=Math.round(T.v1);
    ctx.fillStyle='#f4f6f7';for(var l=0;l<names.length;l+=2)ctx.fillRect(0,AX+l*LH,w,LH);
    axis();
    var shown=T.shown();
    for(var k=0;k<shown.length;k++){var i=shown[k],y=AX+lane[i]*LH,c=T.D.call[i];
      if(c>=0&&T.headRow[c]===i&&T.D.callMs[c]>=0){
        var x0=x(T.D.callAt[c]),x1=x(T.D.callAt[c]+T.D.callMs[c]);if(x1<0||x0>w)continue;
        ctx.fillStyle=colors[T.D.statuses[T.D.callStatus[c]]]||'#566573';ctx.fillRect(x0,y+3,Math.max(2,x1-x0),LH-6);
      }else{var xi=x(T.D.time[i]);if(xi<0||xi>w)continue;
        ctx.fillStyle=T.D.flags[i]?'#c0392b':kindColors[T.D.kinds[T.D.kind[i]]]||'#566573';ctx.fillRect(xi,y+4,1.5,LH-8);}
    }
    var sel=T.selected();
    if(sel!==null){ctx.fillStyle='#2471a3';ctx.fillRect(x(T.D.time[sel])-1,AX,2,h-AX);}
  }
  // The time axis: about one tick per 120 pixels, at a round interval.
  function axis(){
    var span=T.v1-T.v0,step=1,steps=[1,2,5,10,20,50,100,200,500,1e3,2e3,5e3,1e4,3e4,6e4,12e4,3e5,6e5,18e5,36e5,72e5,216e5,432e5,864e5];
    for(var j=0;j<steps.length&&span/steps[j]>w/120;j++)step=steps[j+1]||steps[j];
    ctx.fillStyle='#566573';ctx.font='10px ui-monospace,monospace';
    for(var s=Math.ceil((T.D.t0+T.v0)/step)*step-T.D.t0;s<=T.v1;s+=step){var px=x(s);
      ctx.fillRect(px,AX-4,1,4);
      var iso=new Date(T.D.t0+s).toISOString();ctx.fillText(step<1e3?iso.slice(17,23):step<864e5?iso.slice(11,19):iso.slice(0,10),px+2,AX-6);}
  }
  var down=null;
  canvas.onmousedown=function(e){down={x:e.offsetX,y:e.offsetY};brush.hidden=true;};
  canvas.onmousemove=function(e){
    if(!down||Math.abs(e.offsetX-down.x)<4)return;
    brush.hidden=false;brush.style.left=(labels.offsetWidth+Math.min(down.x,e.offsetX))+'px';brush.style.width=Math.abs(e.offsetX-down.x)+'px';
  };
  canvas.onmouseup=function(e){
    var d=down;down=null;brush.hidden=true;if(!d)return;
    if(Math.abs(e.offsetX-d.x)>=4){T.range(t(Math.min(d.x,e.offsetX)),t(Math.max(d.x,e.offsetX)));return;}
    var l=Math.floor((e.offsetY-AX)/LH),best=-1,bd=6,shown=T.shown();
    for(var k=0;k<shown.length;k++){var i=shown[k];if(lane[i]!==l)continue;var dx=Math.abs(x(T.D.time[i])-e.offsetX);if(dx<bd){bd=dx;best=i;}}
    if(best>=0)T.show(T.D.seq[best]);
  };
  canvas.ondblclick=function(){T.range(null,null);};
  canvas.addEventListener('wheel',function(e){e.preventDefault();zoom(e.deltaY<0?0.8:1.25,e.offsetX/w);},{passive:false});
  // zoom scales the window by f around the fraction at of its width.
  function zoom(f,at){var c=T.v0+at*(T.v1-T.v0),span=Math.max(1,(T.v1-T.v0)*f);T.view(c-at*span,c-at*span+span);}
  return {layout:layout,draw:draw,zoom:zoom};
}
