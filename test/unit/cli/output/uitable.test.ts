import { describe, expect, it } from '@jest/globals';
import { renderUiTable, resize, wrapString } from '../../../../src/cli/output/uitable.ts';

describe('uitable as KUDO printed it', () => {
  it('pads every cell, the last one too, and joins cells with a tab', () => {
    expect(
      renderUiTable([
        ['Name', 'Default'],
        ['cpus', '0.25'],
        ['memory', '1Gi'],
      ]),
    ).toBe('Name  \tDefault\ncpus  \t0.25   \nmemory\t1Gi    ');
  });

  it('cuts a cell longer than the width to width-3 characters plus ...', () => {
    expect(resize('foobar', 5)).toBe('fo...');
    expect(resize('foo', 5)).toBe('foo  ');
    const long = 'A_VERY_LONG_PARAMETER_NAME_THAT_GOES_ON_AND_ON';
    const table = renderUiTable([['Name'], [long]], { maxColWidth: 35, wrap: true });
    expect(table.split('\n')[1]).toBe(`${long.slice(0, 32)}...`);
    expect(table.split('\n')[0]).toBe('Name'.padEnd(35));
  });

  it('word-wraps long cells with spaces and fills the other cells of the row with blanks', () => {
    const text = 'the number of replicas of the statefulset to run';
    expect(wrapString(text, 20)).toBe('the number of\nreplicas of the\nstatefulset to run');
    const table = renderUiTable(
      [
        ['N', 'Descriptions'],
        ['a', text],
      ],
      { maxColWidth: 20, wrap: true },
    );
    expect(table).toBe(
      [
        'N\tDescriptions        ',
        'a\tthe number of       ',
        ' \treplicas of the     ',
        ' \tstatefulset to run  ',
      ].join('\n'),
    );
  });

  it('spreads a multi-line cell over several lines when wrapping, and cuts it otherwise', () => {
    const rows = [
      ['Name', 'Default'],
      ['ports', '- 80\n- 443\n'],
    ];
    expect(renderUiTable(rows)).toBe('Name \tDefault\nports\t- 80...');
    expect(renderUiTable(rows, { maxColWidth: 35, wrap: true })).toBe(
      'Name \tDefault\nports\t- 80   \n     \t- 443  \n     \t       ',
    );
  });
});
