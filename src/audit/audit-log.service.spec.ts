import { canonicalJson } from './canonical-json';
import { csvCell } from './audit-log.service';

describe('audit export cells', () => {
  it('quotes every cell and doubles quotes', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell(42)).toBe('"42"');
  });

  it('never hands a spreadsheet a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvCell(`${start}1+1`)).toBe(`"'${start}1+1"`);
  });

  it("keeps a value with another locale's separator one quoted cell", () => {
    // Split on `;`, an unquoted `x;=cmd|' /C calc'!A0` is a second cell that is a formula.
    expect(csvCell("x;=cmd|' /C calc'!A0")).toBe(`"x;=cmd|' /C calc'!A0"`);
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every depth and writes dates as ISO text', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: new Date('2026-11-24T00:00:00.000Z') } })).toBe(
      '{"a":{"c":"2026-11-24T00:00:00.000Z","d":[{"y":2,"z":1}]},"b":1}',
    );
  });
});
