import type { ChannelTarget } from '../access/policy/access-policy';
import { DELETE_PROJECT_ROLE, UPDATE_PROJECT_ROLE } from './projects.access';

const CHANNEL = '6650c0ffee0000000000c001';
const OTHER_CHANNEL = '6650c0ffee0000000000c002';
const PARENT = '6650c0ffee0000000000a001';
const SIBLING = '6650c0ffee0000000000a002';

const top = (body: Record<string, unknown> = {}): ChannelTarget => ({
  channelId: CHANNEL,
  parentId: null,
  deleting: false,
  body,
});
const sub = (body: Record<string, unknown> = {}): ChannelTarget => ({ ...top(body), parentId: PARENT });

describe('UPDATE_PROJECT_ROLE', () => {
  it('asks editor for an edit in place, of a top-level project or a sub-project', () => {
    expect(UPDATE_PROJECT_ROLE.of(top({ primaryTitle: 'T' }))).toBe('editor');
    expect(UPDATE_PROJECT_ROLE.of(sub({ primaryTitle: 'T' }))).toBe('editor');
    expect(UPDATE_PROJECT_ROLE.of(sub({ channelId: CHANNEL.toUpperCase() }))).toBe('editor');
  });

  it('asks manager to put a top-level project under another, editor to move a sub-project within the channel', () => {
    expect(UPDATE_PROJECT_ROLE.of(top({ parentId: SIBLING }))).toBe('manager');
    expect(UPDATE_PROJECT_ROLE.of(top({ parentId: null }))).toBe('editor');
    expect(UPDATE_PROJECT_ROLE.of(sub({ parentId: SIBLING }))).toBe('editor');
    expect(UPDATE_PROJECT_ROLE.of(sub({ parentId: null }))).toBe('editor');
  });

  it('asks manager to take any project to another channel', () => {
    expect(UPDATE_PROJECT_ROLE.of(top({ channelId: OTHER_CHANNEL }))).toBe('manager');
    expect(UPDATE_PROJECT_ROLE.of(sub({ channelId: OTHER_CHANNEL, parentId: null }))).toBe('manager');
  });

  it('reads a field validation will refuse as no change', () => {
    expect(UPDATE_PROJECT_ROLE.of(top({ channelId: 'nope', parentId: 7 }))).toBe('editor');
  });

  it('knows no project whose delete has begun', () => {
    expect(UPDATE_PROJECT_ROLE.of({ ...top({ primaryTitle: 'T' }), deleting: true })).toBeNull();
  });
});

describe('DELETE_PROJECT_ROLE', () => {
  it('asks manager for a top-level project, editor for a sub-project or to finish a delete begun', () => {
    expect(DELETE_PROJECT_ROLE.of(top())).toBe('manager');
    expect(DELETE_PROJECT_ROLE.of(sub())).toBe('editor');
    expect(DELETE_PROJECT_ROLE.of({ ...top(), deleting: true })).toBe('editor');
  });
});
