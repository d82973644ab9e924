import { fileNameProblem } from './file-name';

describe('fileNameProblem', () => {
  it.each([
    ['evil\u202Egnp.exe', /bidirectional/],
    ['a\u2066b.png', /bidirectional/],
    ['\uFEFFcover.png', /format/],
    ['x\u009b31m.png', /control/],
    ['a\u2028b.png', /control/],
    ['a\u2029b.png', /control/],
    ['CON', /device name/],
    ['con.txt', /device name/],
    ['Lpt9.tar.gz', /device name/],
    ['COM\u00B9', /device name/],
    ['aux .', /device name/],
    ['', /spaces and dots/],
    ['   ', /spaces and dots/],
    ['...', /spaces and dots/],
    ['\u3000', /spaces and dots/],
  ])('refuses %p', (name, problem) => {
    expect(fileNameProblem(name)).toMatch(problem);
  });

  it.each([
    'cover.png',
    'console.png',
    'COM10.png',
    'LPT.png',
    'connection.txt',
    'my cover.png',
    'Été "cover".png',
    '.env',
    'a..b',
  ])('keeps %p', (name) => {
    expect(fileNameProblem(name)).toBeNull();
  });
});
