import { CHANNEL_ROLES, roleAtLeast } from './collaborator.schema';

describe('roleAtLeast', () => {
  it('ranks viewer < editor < manager < owner', () => {
    expect(CHANNEL_ROLES).toEqual(['viewer', 'editor', 'manager', 'owner']);
    expect(roleAtLeast('editor', 'editor')).toBe(true);
    expect(roleAtLeast('owner', 'manager')).toBe(true);
    expect(roleAtLeast('manager', 'editor')).toBe(true);
    expect(roleAtLeast('viewer', 'editor')).toBe(false);
    expect(roleAtLeast('editor', 'manager')).toBe(false);
    expect(roleAtLeast('manager', 'owner')).toBe(false);
  });
});
