import { describe, expect, it } from 'vitest';
import { csvLine, number, text } from '../../server/domain/csv';

describe('csv', () => {
  it('quotes fields with commas, quotes and line breaks, and ends lines with CRLF', () => {
    expect(csvLine([text('plain'), text('a,b'), text('say "hi"'), text('two\nlines'), text(null), number(12.5)])).toBe(
      'plain,"a,b","say ""hi""","two\nlines",,12.5\r\n',
    );
  });

  it('defuses text a spreadsheet would run as a formula, but not negative amounts', () => {
    expect(csvLine([text('=HYPERLINK("x")'), text('+1'), text('-2'), text('@SUM(A1)'), text('\tx'), number('-10.00')])).toBe(
      `"'=HYPERLINK(""x"")",'+1,'-2,'@SUM(A1),'\tx,-10.00\r\n`,
    );
  });

  it('quotes a semicolon, which a spreadsheet using it as separator would split into a formula cell', () => {
    expect(csvLine([text('x;=1+1'), text('a;b')])).toBe('"x;=1+1","a;b"\r\n');
  });
});
