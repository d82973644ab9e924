import { canonicalJson } from './canonical-json';
import { csvCell } from './audit-log.service';

describe('audit export cells', () => {
  it('quotes what CSV must quote and doubles quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(42)).toBe('42');
  });

  it('never hands a spreadsheet a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@sum')).toBe("'@sum");
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every depth and writes dates as ISO text', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: new Date('2026-11-24T00:00:00.000Z') } })).toBe(
      '{"a":{"c":"2026-11-24T00:00:00.000Z","d":[{"y":2,"z":1}]},"b":1}',
    );
  });
});
