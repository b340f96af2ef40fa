// The Flume console: one page, routed by the URL's fragment, drawing what
// the JSON API under /api/ answers (flume-console(7)).  Plain JavaScript,
// no library; graphs are SVG drawn here.
'use strict';

const main = document.getElementById('main');
let auth = sessionStorage.getItem('flume-auth');	// "Basic ..." or null
let admin = false;

function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const k in attrs || {}) {
		if (k === 'text') e.textContent = attrs[k];
		else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
		else e.setAttribute(k, attrs[k]);
	}
	for (const c of kids) if (c != null) e.append(c);
	return e;
}

async function api(path, opts) {
	const o = opts || {};
	o.headers = o.headers || {};
	if (auth) o.headers['Authorization'] = auth;
	const r = await fetch('/api/' + path, o);
	let body;
	try { body = await r.json(); } catch (e) { body = { error: 'not JSON' }; }
	if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
	return body;
}

function q(v) { return encodeURIComponent(v); }
function fmtBytes(n) {
	const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
	let i = 0;
	while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
	return (i ? n.toFixed(1) : n) + ' ' + u[i];
}
function fmtTime(ms) { return ms < 0 ? '-' : new Date(ms).toISOString().replace('T', ' ').replace('Z', ''); }
function fmtDur(s) {
	if (s < 0) return '-';
	const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600),
	    m = Math.floor(s % 3600 / 60);
	return (d ? d + 'd ' : '') + h + 'h ' + m + 'm ' + (s % 60) + 's';
}

function table(id, heads, rows) {
	const t = el('table', { id: id });
	t.append(el('tr', {}, ...heads.map(h => el('th', { text: h }))));
	for (const r of rows) {
		t.append(el('tr', {}, ...r.map(c => {
			if (c instanceof Node) return el('td', {}, c);
			return el('td', typeof c === 'number' ? { class: 'num', text: String(c) } : { text: String(c) });
		})));
	}
	return t;
}
function link(href, text) { return el('a', { href: href, text: text }); }

// A line graph of series [{name, points: [[t, v]...]}] as inline SVG.
function graph(id, series, unit) {
	const W = 640, H = 160, L = 60, B = 20, ns = 'http://www.w3.org/2000/svg';
	const svg = document.createElementNS(ns, 'svg');
	svg.setAttribute('id', id);
	svg.setAttribute('class', 'graph');
	svg.setAttribute('width', W);
	svg.setAttribute('height', H);
	const all = series.flatMap(s => s.points);
	const txt = (x, y, s) => {
		const t = document.createElementNS(ns, 'text');
		t.setAttribute('x', x); t.setAttribute('y', y);
		t.setAttribute('font-size', '11'); t.textContent = s;
		svg.append(t);
	};
	if (all.length === 0) { txt(L, H / 2, 'no samples yet (one every 10 s)'); return svg; }
	const t0 = Math.min(...all.map(p => p[0])), t1 = Math.max(...all.map(p => p[0]));
	const vmax = Math.max(1, ...all.map(p => p[1]));
	const X = t => L + (t1 > t0 ? (t - t0) / (t1 - t0) : 0.5) * (W - L - 10);
	const Y = v => H - B - v / vmax * (H - B - 10);
	const colors = ['#36c', '#c63', '#393', '#939'];
	series.forEach((s, i) => {
		const p = document.createElementNS(ns, 'polyline');
		p.setAttribute('fill', 'none');
		p.setAttribute('stroke', colors[i % colors.length]);
		p.setAttribute('stroke-width', '2');
		p.setAttribute('points', s.points.map(q2 => X(q2[0]).toFixed(1) + ',' + Y(q2[1]).toFixed(1)).join(' '));
		svg.append(p);
		txt(L + 10 + i * 120, 12, s.name);
	});
	txt(2, 14, vmax.toFixed(vmax < 10 ? 1 : 0) + ' ' + unit);
	txt(2, H - B, '0');
	txt(L, H - 4, fmtTime(t0).slice(11, 19));
	txt(W - 70, H - 4, fmtTime(t1).slice(11, 19));
	return svg;
}

function show(title, ...kids) {
	main.replaceChildren(el('h1', { text: title }), ...kids.filter(k => k != null));
}
function fail(e) { main.append(el('p', { class: 'error', id: 'error', text: String(e.message || e) })); }

// ---- pages ----

async function pageOverview() {
	const [o, t, g] = await Promise.all([api('overview'), api('topics?limit=500'), api('groups')]);
	const procs = o.processes.map(p => [p.role, p.slot, p.pid, p.restarts, p.connections, p.requests]);
	show('Overview',
	    el('div', { class: 'cards' },
		el('div', { class: 'card' }, 'Version', el('b', { id: 'version', text: o.version })),
		el('div', { class: 'card' }, 'Uptime', el('b', { text: fmtDur(o.uptime_s) })),
		el('div', { class: 'card' }, 'Topics', el('b', { text: String(o.topics) })),
		el('div', { class: 'card' }, 'Groups', el('b', { text: String(o.groups) })),
		el('div', { class: 'card' }, 'Connections', el('b', { text: String(o.connections) })),
		el('div', { class: 'card' }, 'Disk (' + o.data_dir + ')', el('b', { text: fmtBytes(o.disk_bytes) }))),
	    el('h2', { text: 'Throughput, last hour' }),
	    graph('graph-msgs', [
		{ name: 'in msgs/s', points: o.samples.map(s => [s.t_ms, s.msgs_in]) },
		{ name: 'out msgs/s', points: o.samples.map(s => [s.t_ms, s.msgs_out]) }], 'msgs/s'),
	    graph('graph-bytes', [
		{ name: 'in bytes/s', points: o.samples.map(s => [s.t_ms, s.bytes_in]) },
		{ name: 'out bytes/s', points: o.samples.map(s => [s.t_ms, s.bytes_out]) }], 'B/s'),
	    el('h2', { text: 'Topics' }),
	    table('overview-topics', ['topic', 'partitions', 'messages', 'size', 'msgs/s'],
		t.topics.map(x => [link('#/topic/' + q(x.name), x.name), x.partitions, x.messages, fmtBytes(x.bytes), x.msgs_per_s])),
	    el('h2', { text: 'Consumer groups' }),
	    table('overview-groups', ['group', 'kind', 'state', 'members', 'lag'],
		g.groups.map(x => [link('#/group/' + q(x.name), x.name), x.kind, x.state, x.members, x.lag])),
	    el('h2', { text: 'Processes' }),
	    table('processes', ['role', 'slot', 'pid', 'restarts', 'connections', 'requests'], procs),
	    el('h2', { text: 'Listeners' }),
	    table('listeners', ['listener', 'address'],
		Object.entries(o.listeners).map(([k, v]) => [k, v || 'off'])));
}

async function pageTopics() {
	// The broker's own topics (__consumer_offsets) too, marked.
	const t = await api('topics?limit=500&internal=1');
	show('Topics', table('topics', ['topic', 'partitions', 'messages', 'size', 'msgs/s'],
	    t.topics.map(x => [link('#/topic/' + q(x.name), x.internal ? x.name + ' (internal)' : x.name), x.partitions, x.messages, fmtBytes(x.bytes), x.msgs_per_s])),
	    adminForm('Create a topic', 'topic/create', ['name', 'partitions']));
}

async function pageTopic(name) {
	const t = await api('topic?name=' + q(name));
	const segs = await Promise.all(t.partitions.map(p =>
	    api('segments?topic=' + q(name) + '&partition=' + p.partition + '&limit=500')));
	show('Topic ' + name,
	    table('partitions', ['partition', 'log start', 'log end', 'durable', 'size', 'segments', 'msgs/s', ''],
		t.partitions.map(p => [p.partition, p.log_start, p.log_end, p.durable, fmtBytes(p.bytes), p.segments, p.msgs_per_s,
		    link('#/messages/' + q(name) + '/' + p.partition, 'browse')])),
	    el('h2', { text: 'Configs' }),
	    table('configs', ['name', 'value', 'source'], t.configs.map(c => [c.name, c.value, c.source])),
	    adminForm('Change a config', 'topic/config', ['key', 'value'], { topic: name }),
	    el('h2', { text: 'Segments' }),
	    ...segs.map(s => el('div', {}, el('h3', { text: 'Partition ' + s.partition }),
		table('segments-' + s.partition, ['base offset', 'bytes', 'index', 'time index', 'modified'],
		    s.segments.map(g => [g.base_offset, g.bytes, g.index_bytes, g.timeindex_bytes, fmtTime(g.modified_ms)])))));
}

async function pageGroups() {
	const g = await api('groups');
	show('Consumer groups', table('groups', ['group', 'kind', 'state', 'generation', 'members', 'lag'],
	    g.groups.map(x => [link('#/group/' + q(x.name), x.name), x.kind, x.state, x.generation, x.members, x.lag])));
}

async function pageGroup(name) {
	const g = await api('group?name=' + q(name));
	show('Group ' + name,
	    el('p', { id: 'group-state', text: g.kind + ' group, ' + g.state + ', generation ' + g.generation +
		(g.protocol ? ', protocol ' + g.protocol : '') }),
	    el('h2', { text: 'Lag' }),
	    table('lag', ['topic', 'partition', 'committed', 'log end', 'lag'],
		g.offsets.map(o => [o.topic, o.partition, o.committed, o.log_end, o.lag])),
	    graph('graph-lag', [{ name: 'total lag', points: g.lag_history.map(s => [s.t_ms, s.lag]) }], 'records'),
	    el('h2', { text: 'Members' }),
	    table('members', ['member', 'client', 'host', 'assignment'],
		g.members.map(m => [m.id, m.client, m.host, m.assignments.map(a => a.topic + '-' + a.partition).join(' ')])),
	    adminForm('Reset offsets', 'group/reset', ['topic', 'partition', 'to'], { group: name }));
}

// Bytes of a base64 string, and the three views of them.
function bytesOf(b64) { return b64 == null ? null : Uint8Array.from(atob(b64), c => c.charCodeAt(0)); }
function view(b64, how) {
	const b = bytesOf(b64);
	if (b == null) return 'null';
	if (how === 'hex') return Array.from(b, x => x.toString(16).padStart(2, '0')).join(' ');
	const s = new TextDecoder('utf-8', { fatal: false }).decode(b);
	if (how === 'json') {
		try { return JSON.stringify(JSON.parse(s), null, 2); } catch (e) { return s + '  (not JSON)'; }
	}
	return s;
}

async function pageMessages(topic, part) {
	const t = await api('topics?limit=500&internal=1');
	const f = el('form', { class: 'controls', id: 'browse' });
	const sel = el('select', { name: 'topic', id: 'm-topic' }, ...t.topics.map(x => el('option', { value: x.name, text: x.name })));
	if (topic) sel.value = topic;
	const field = (label, input) => el('label', {}, label, input);
	const inPart = el('input', { name: 'partition', id: 'm-partition', value: part || '0', size: 4 });
	const inOff = el('input', { name: 'offset', id: 'm-offset', size: 10, placeholder: 'offset' });
	const inTime = el('input', { name: 'time', id: 'm-time', size: 20, placeholder: 'YYYY-MM-DDTHH:MM' });
	const inOrder = el('select', { name: 'order', id: 'm-order' }, el('option', { value: 'oldest', text: 'oldest first' }),
	    el('option', { value: 'newest', text: 'newest first' }));
	const inLimit = el('input', { name: 'limit', id: 'm-limit', value: '50', size: 4 });
	const inView = el('select', { id: 'm-view' }, ...['text', 'json', 'hex'].map(v => el('option', { value: v, text: v })));
	const inSearch = el('input', { id: 'm-search', placeholder: 'search this page' });
	f.append(field('topic', sel), field('partition', inPart), field('from offset', inOff), field('or from time', inTime),
	    field('order', inOrder), field('page size', inLimit), el('button', { type: 'submit', id: 'm-go', text: 'Fetch' }),
	    field('view', inView), field('search', inSearch));
	const out = el('div', { id: 'records' });
	let last = null;
	const render = () => {
		if (!last) return;
		const how = inView.value, needle = inSearch.value.toLowerCase();
		const rows = last.records.map(r => {
			const k = view(r.key, how), v = view(r.value, how);
			const hs = r.headers.map(h => h.key + '=' + view(h.value, how)).join(' ');
			const tr = el('tr', {}, el('td', { class: 'num', text: String(r.offset) }), el('td', { text: fmtTime(r.timestamp) }),
			    el('td', {}, el('pre', { class: 'val key', text: k })), el('td', {}, el('pre', { class: 'val value', text: v })),
			    el('td', { text: hs }));
			if (needle && !(k + ' ' + v + ' ' + hs).toLowerCase().includes(needle)) tr.classList.add('hidden');
			return tr;
		});
		if (last.order === 'newest') rows.reverse();
		const tb = el('table', { id: 'messages' }, el('tr', {}, ...['offset', 'timestamp', 'key', 'value', 'headers'].map(h => el('th', { text: h }))), ...rows);
		out.replaceChildren(el('p', { id: 'm-range', text: 'log ' + last.log_start + '..' + last.log_end + ', ' + last.records.length +
		    ' records, next page from ' + last.next }), tb);
	};
	const load = async () => {
		let p = 'messages?topic=' + q(sel.value) + '&partition=' + q(inPart.value) + '&order=' + inOrder.value + '&limit=' + q(inLimit.value);
		if (inOff.value) p += '&offset=' + q(inOff.value);
		else if (inTime.value) p += '&time=' + Date.parse(inTime.value);
		try { last = await api(p); render(); } catch (e) { out.replaceChildren(el('p', { class: 'error', id: 'error', text: e.message })); }
	};
	f.addEventListener('submit', ev => { ev.preventDefault(); load(); });
	inView.addEventListener('change', render);
	inSearch.addEventListener('input', render);
	show('Messages', f, out, adminForm('Produce a test record', 'produce', ['topic', 'partition', 'key', 'value']));
	if (sel.value) await load();
}

// A write action's form, present only for an admin.
function adminForm(title, action, fields, fixed) {
	if (!admin) return null;
	const f = el('form', { class: 'admin', id: 'admin-' + action.replace('/', '-') }, el('h3', { text: title }));
	for (const n of fields) f.append(el('label', {}, n + ' ', el('input', { name: n })), ' ');
	const res = el('span', { class: 'result' });
	f.append(el('button', { type: 'submit', text: title }), ' ', res);
	f.addEventListener('submit', async ev => {
		ev.preventDefault();
		if (!confirm(title + '?')) return;
		// The arguments go in the query string, as for the reads.
		const args = new URLSearchParams(fixed || {});
		for (const n of fields) if (f.elements[n].value !== '') args.set(n, f.elements[n].value);
		try {
			const r = await api(action + '?' + args, { method: 'POST' });
			res.textContent = 'done: ' + JSON.stringify(r);
			res.className = 'result';
		} catch (e) { res.textContent = e.message; res.className = 'result error'; }
	});
	return f;
}

async function whoami() {
	const who = document.getElementById('who');
	let w;
	try { w = await api('whoami'); } catch (e) { w = { user: null, admin: false, auth: false }; }
	admin = w.admin;
	who.replaceChildren();
	if (w.user) {
		who.append((w.admin ? 'admin ' : '') + w.user + ' ', el('a', { href: '#', text: 'log out', onclick: ev => {
			ev.preventDefault(); sessionStorage.removeItem('flume-auth'); auth = null; route(); } }));
	} else if (w.auth) {
		const u = el('input', { placeholder: 'user', size: 8 }), p = el('input', { type: 'password', placeholder: 'secret', size: 8 });
		who.append(el('form', { onsubmit: ev => {
			ev.preventDefault(); auth = 'Basic ' + btoa(u.value + ':' + p.value);
			sessionStorage.setItem('flume-auth', auth); route(); } }, u, p, el('button', { text: 'log in (admin)' })));
	}
}

async function route() {
	const h = decodeURIComponent(location.hash.slice(1) || '/overview').split('/').slice(1);
	for (const a of document.querySelectorAll('nav a'))
		a.classList.toggle('active', a.id === 'nav-' + (h[0] === 'topic' ? 'topics' : h[0] === 'group' ? 'groups' : h[0]));
	try {
		await whoami();
		switch (h[0]) {
		case 'topics': await pageTopics(); break;
		case 'topic': await pageTopic(h.slice(1).join('/')); break;
		case 'groups': await pageGroups(); break;
		case 'group': await pageGroup(h.slice(1).join('/')); break;
		case 'messages': await pageMessages(h[1], h[2]); break;
		default: await pageOverview();
		}
		document.body.setAttribute('data-ready', h[0] || 'overview');
	} catch (e) { show('Error'); fail(e); document.body.setAttribute('data-ready', 'error'); }
}

window.addEventListener('hashchange', () => { document.body.removeAttribute('data-ready'); route(); });
route();
