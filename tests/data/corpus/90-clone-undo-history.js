// Draft edits on a deep copy of the loaded state, with an undo history of snapshots.
const users = tools.users.list({ limit: 4 });
const state = {
  users: new Map(users.map((u) => [u.id, u])),
  tags: new Set(['new', 'imported']),
  loadedAt: new Date(Date.UTC(2024, 0, 15, 9, 30)),
  filter: /^user[0-9]+$/i,
};
state.self = state; // a back-reference the copy must keep

const history = [];
function commit(label, edit) {
  history.push({ label, snapshot: structuredClone(state) });
  edit(state);
}

commit('deactivate user1', (s) => {
  s.users.get(1).active = false;
});
commit('tag vip', (s) => {
  s.tags.add('vip');
  s.tags.delete('new');
});
commit('rename user3', (s) => {
  s.users.get(3).name = 'Carol';
});

const first = history[0].snapshot;
console.log(`history: ${history.map((h) => h.label).join(' | ')}`);
console.log(`first snapshot: ${first.users.size} users, tags ${[...first.tags].join(',')}`);
console.log(`now: tags ${[...state.tags].join(',')}, user3 is ${state.users.get(3).name}`);

// Undo twice: restore the snapshot taken before the second edit.
const restored = history[1].snapshot;
return {
  snapshots: history.length,
  selfKept: restored.self === restored,
  mapIsMap: restored.users instanceof Map,
  user1Active: [first.users.get(1).active, restored.users.get(1).active, state.users.get(1).active],
  user3: [restored.users.get(3).name, state.users.get(3).name],
  tags: [...restored.tags],
  loadedAt: restored.loadedAt.toISOString(),
  filterMatches: restored.filter.test('USER7'),
  sharedWithState: restored.users.get(1) === state.users.get(1),
};
