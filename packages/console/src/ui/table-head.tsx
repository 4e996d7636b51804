/** A list table's header row; `actions` adds a last column named for screen readers only. */
export function TableHead({ columns, actions = false }: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {actions ? (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}
