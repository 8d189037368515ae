// Progressive enhancement only: a "Copy" button beside each value shown for copying. Every page
// works without this script.
document.addEventListener('DOMContentLoaded', () => {
  if (!navigator.clipboard) return;
  for (const value of document.querySelectorAll('.copyable')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy secondary';
    button.textContent = 'Copy';
    button.addEventListener('click', () => {
      navigator.clipboard.writeText(value.textContent.trim()).then(() => {
        button.textContent = 'Copied';
        setTimeout(() => { button.textContent = 'Copy'; }, 1500);
      }, () => {});
    });
    value.after(button);
  }
});
