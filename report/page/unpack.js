// Decoding the page's data (report.pack): base64, DEFLATE (RFC 1951), JSON.
// The inflate is the page's own, after zlib's puff.c: the browser's
// DecompressionStream is asynchronous, and its turns come only once the
// parser has read the whole page, which would delay the first rows.
// unpack decodes the data split into the elements sel matches (or the
// elements given).
function unpack(sel){
  var parts=typeof sel==='string'?document.querySelectorAll(sel):sel,s='';
  for(var i=0;i<parts.length;i++)s+=JSON.parse(parts[i].textContent);
  var u;
  if(Uint8Array.fromBase64)u=Uint8Array.fromBase64(s);
  else{var b=atob(s);u=new Uint8Array(b.length);for(i=0;i<b.length;i++)u[i]=b.charCodeAt(i);}
  return JSON.parse(new TextDecoder().decode(inflate(u,Number(parts[0].dataset.size)||0)));
}
// inflate decodes raw DEFLATE (RFC 1951), as zlib's puff.c does.
var LB=[3,4,5,6,7,8,9,10,11,13,15,17,19,23,27,31,35,43,51,59,67,83,99,115,131,163,195,227,258],
    LX=[0,0,0,0,0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,0],
    DB=[1,2,3,4,5,7,9,13,17,25,33,49,65,97,129,193,257,385,513,769,1025,1537,2049,3073,4097,6145,8193,12289,16385,24577],
    DX=[0,0,0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,13],
    CL=[16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1,15];
// size, when known, is the length of what it decodes to.
function inflate(src,size){
  var out=new Uint8Array(size||Math.max(1024,src.length*4)),op=0,bp=0,bb=0,bc=0;
  function room(n){if(op+n>out.length){var o=new Uint8Array(Math.max(2*out.length,op+n));o.set(out);out=o;}}
  // The bit buffer bb holds bc bits; past the end it reads zeros, which
  // a whole stream never uses.
  function need(n){while(bc<n){if(bp>src.length+4)throw new Error('inflate: data ends early');bb|=(bp<src.length?src[bp]:0)<<bc;bp++;bc+=8;}}
  function bits(n){need(n);var v=bb&((1<<n)-1);bb>>>=n;bc-=n;return v;}
  // A Huffman table: t[next m bits] = symbol<<4 | code length.
  function table(len,n){var m=0,i,c=new Uint16Array(16),next=new Uint16Array(16);
    for(i=0;i<n;i++){c[len[i]]++;if(len[i]>m)m=len[i];}
    c[0]=0;for(var code=0,l=1;l<16;l++){code=(code+c[l-1])<<1;next[l]=code;}
    var t=new Uint32Array(1<<m);
    for(i=0;i<n;i++){l=len[i];if(!l)continue;
      for(var k=0,x=next[l]++,r=0;k<l;k++,x>>=1)r=r<<1|x&1;
      for(var j=r;j<t.length;j+=1<<l)t[j]=i<<4|l;}
    return {t:t,m:m};}
  function sym(h){need(h.m);var e=h.t[bb&((1<<h.m)-1)];if(!(e&15))throw new Error('inflate: bad code');
    bb>>>=e&15;bc-=e&15;return e>>4;}
  var fixL,fixD,last;
  do{
    last=bits(1);var type=bits(2),lit,dist;
    if(type===0){bp-=bc>>3;bb=bc=0;var n=src[bp]|src[bp+1]<<8;bp+=4;room(n);out.set(src.subarray(bp,bp+n),op);op+=n;bp+=n;continue;}
    if(type===1){
      if(!fixL){var l=new Uint8Array(288);l.fill(8,0,144);l.fill(9,144,256);l.fill(7,256,280);l.fill(8,280);
        fixL=table(l,288);fixD=table(new Uint8Array(30).fill(5),30);}
      lit=fixL;dist=fixD;
    }else if(type===2){
      var nl=bits(5)+257,nd=bits(5)+1,nc=bits(4)+4,cl=new Uint8Array(19),i;
      for(i=0;i<nc;i++)cl[CL[i]]=bits(3);
      var ch=table(cl,19),lens=new Uint8Array(nl+nd);
      for(i=0;i<nl+nd;){var y=sym(ch);
        if(y<16)lens[i++]=y;
        else{var r=y===16?3+bits(2):y===17?3+bits(3):11+bits(7),v=y===16?lens[i-1]:0;while(r--)lens[i++]=v;}}
      lit=table(lens.subarray(0,nl),nl);dist=table(lens.subarray(nl),nd);
    }else throw new Error('inflate: bad block type');
    for(;;){var x=sym(lit);
      if(x<256){room(1);out[op++]=x;}
      else if(x===256)break;
      else{x-=257;var len=LB[x]+bits(LX[x]),d=sym(dist),back=DB[d]+bits(DX[d]);room(len);
        for(var j=0;j<len;j++,op++)out[op]=out[op-back];}
    }
  }while(!last);
  return out.subarray(0,op);
}
