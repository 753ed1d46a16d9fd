// Inclusion proofs, checked in the page: RFC 6962 trees over an epoch's
// record digests, hashed with the browser's SHA-256 (Web Crypto, which a
// page opened from a file or over https has; asynchronous, so proofs are
// promises).
function sha256(m){return crypto.subtle.digest('SHA-256',m).then(function(h){return new Uint8Array(h);});}
function bytes(hex){var o=new Uint8Array(hex.length/2);for(var i=0;i<o.length;i++)o[i]=parseInt(hex.substr(2*i,2),16);return o;}
function hexOf(b){var s='';for(var i=0;i<b.length;i++)s+=(b[i]<16?'0':'')+b[i].toString(16);return s;}
function digests(s){var o=[];for(var i=0;i<s.length;i+=64)o.push(s.substr(i,64));return o;}
// RFC 6962 §2.1: leaf hash SHA-256(0x00‖d), node hash SHA-256(0x01‖l‖r).
function leaf(d){var m=new Uint8Array(33);m.set(bytes(d),1);return sha256(m);}
function node(l,r){var m=new Uint8Array(65);m[0]=1;m.set(l,1);m.set(r,33);return sha256(m);}
// The levels of the RFC 6962 tree over the leaves ds, leaf hashes first:
// each level pairs the one below left to right and carries an odd last
// node up unchanged, which builds the tree of RFC 6962 §2.1 (the left
// subtree of every node holds the largest power of two of its leaves).
function levels(ds){
  return Promise.all(ds.map(leaf)).then(function(l0){
    var out=[l0];
    function up(l){
      if(l.length<2)return out;
      var pairs=[];for(var i=0;i+1<l.length;i+=2)pairs.push(node(l[i],l[i+1]));
      return Promise.all(pairs).then(function(p){if(l.length&1)p.push(l[l.length-1]);out.push(p);return up(p);});
    }
    return up(l0);
  });
}
// The audit path of leaf m, leaf to root (RFC 6962 §2.1.1), read off the
// tree's levels: the sibling at each level where there is one.
function auditPath(m,lv){
  var path=[];
  for(var k=0;k<lv.length-1;k++,m>>=1){var s=m^1;if(s<lv[k].length)path.push(lv[k][s]);}
  return path;
}
// Whether path proves leaf d at index i of a tree of size n with root
// (RFC 9162 §2.1.3.2).
function verifyPath(d,i,n,path,root){
  if(i>=n)return Promise.resolve(false);
  var fn=i,sn=n-1,steps=[];
  for(var j=0;j<path.length;j++){if(sn===0)return Promise.resolve(false);
    if(fn&1||fn===sn){steps.push(1);while(!(fn&1)&&fn!==0){fn>>=1;sn>>=1;}}else steps.push(0);
    fn>>=1;sn>>=1;}
  if(sn!==0)return Promise.resolve(false);
  return steps.reduce(function(r,left,j){return r.then(function(h){return left?node(path[j],h):node(h,path[j]);});},leaf(d))
    .then(function(h){return '0x'+hexOf(h)===root;});
}
