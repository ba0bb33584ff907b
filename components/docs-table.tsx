import type { ReactNode } from 'react';

/** A table of the docs page, in a region that scrolls sideways on a narrow screen. */
export function DocsTable({ label, head, rows }: { label: string; head: readonly string[]; rows: readonly (readonly ReactNode[])[] }) {
  return (
    <div className="table-wrap" role="region" aria-label={`Table: ${label}`} tabIndex={0}>
      <table>
        <thead>
          <tr>
            {head.map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((cells, row) => (
            <tr key={row}>
              {cells.map((cell, column) => (
                <td key={column}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
