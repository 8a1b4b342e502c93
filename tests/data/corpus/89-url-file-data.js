// File and data URLs: turn paths into file URLs and back, resolve against a
// Windows drive, and split a data URL into its media type and payload.
const paths = ['/home/ada/notes/todo list.md', '/tmp/a#b?.txt', '/srv/data/résumé.pdf'];
const fileUrls = paths.map((p) => {
  const url = new URL('file:///');
  url.pathname = p;
  return url.href;
});
fileUrls.forEach((u) => console.log(u));
const back = fileUrls.map((u) => decodeURIComponent(new URL(u).pathname));

const win = new URL('file:///C:/Users/ada/Documents/');
const resolved = ['report.docx', '../Pictures/cat.png', '../../../../etc', '/D:/backup/'].map(
  (rel) => new URL(rel, win).href,
);
console.log(`resolved: ${resolved.join(' | ')}`);

const data = new URL('data:text/plain;charset=utf-8,Hello%2C%20World!');
const [meta, payload] = data.pathname.split(',');
const text = decodeURIComponent(payload);
console.log(`${data.protocol} ${meta} -> ${text}`);
const ext = (u) => new URL(u).pathname.split('/').pop().split('.').pop();
return {
  fileUrls,
  same: back.every((p, i) => p === paths[i]),
  resolved,
  data: { protocol: data.protocol, meta, text, origin: data.origin },
  exts: fileUrls.map(ext),
};
