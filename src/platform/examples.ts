// The ids the OpenAPI examples of every feature share: one small restaurant (Brasserie De Haven,
// Europe/Amsterdam), so a reader can follow a shift, a clock event or a revenue figure to the same
// company, user, department and position.

export const EXAMPLE_IDS = {
  company: 'cmp_7QxK2mVb9LcR4tWp',
  kitchen: 'dep_Kt3nW8qZr1XvB6sd',
  service: 'dep_Fl9eJ2uYc4HmA7ow',
  chef: 'pos_Ck4vP1sM8gTq2ZxL',
  waiter: 'pos_Wt6bN3rD9kQy5HaE',
  dayShift: 'sty_Dy2hR7mX4pLc9VtB',
  jan: 'emp_Jd4sX9kP2wLm7QtV',
  sanne: 'emp_Ms8tB3nR6yHc1ZqW',
} as const;
