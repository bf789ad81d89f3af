import { CARDS, expect, test, returnTo } from './fixtures';
import { cvcInput, expiryInput, fillCard, nameInput, numberInput, oneLine, payButton, PHONE, statusOf } from './screen';

// Without JavaScript: the gateway is chosen before its fields are asked for, and a failed
// post gives the fields back, never the card number or the CVC.

test.use({ javaScriptEnabled: false, viewport: PHONE });

test('no gateway preselected: choosing Card shows its fields, with no errors yet', async ({ page, service, merchant }) => {
  const tx = await service.createTransaction(oneLine(merchant, { gateway_selected: false, language: 'es' }));
  await page.goto(tx.payment_url);
  await expect(numberInput(page)).toHaveCount(0);
  await page.getByRole('radio', { name: 'Tarjeta' }).check();
  await payButton(page).click();
  await expect(numberInput(page)).toBeVisible();
  await expect(page.getByRole('radio', { name: 'Tarjeta' })).toBeChecked();
  await expect(page.locator('.field--invalid')).toHaveCount(0);
  await expect(page.locator('#checkout-alert')).toBeEmpty();
  expect(await statusOf(service, tx.id)).toBe('N');

  await fillCard(page, CARDS.approved, '1234');
  await payButton(page).click();
  await page.waitForURL(returnTo(`${merchant.origin}/return?order=A-2001`));
});

test('a failed post keeps the expiry and the name, never the number or the CVC', async ({ page, service, merchant }) => {
  const tx = await service.createTransaction(oneLine(merchant));
  await page.goto(tx.payment_url);
  await numberInput(page).fill(CARDS.approved);
  await expiryInput(page).fill('1234');
  await cvcInput(page).fill('12');
  await nameInput(page).fill('Ada Lovelace');
  await payButton(page).click();
  await expect(cvcInput(page)).toHaveAttribute('aria-invalid', 'true');
  await expect(expiryInput(page)).toHaveValue('1234');
  await expect(nameInput(page)).toHaveValue('Ada Lovelace');
  await expect(numberInput(page)).toHaveValue('');
  await expect(cvcInput(page)).toHaveValue('');

  // A decline keeps them too.
  await numberInput(page).fill(CARDS.declined);
  await cvcInput(page).fill('123');
  await payButton(page).click();
  await expect(page.getByRole('alert')).toContainText(/declined/i);
  await expect(nameInput(page)).toHaveValue('Ada Lovelace');
  await expect(numberInput(page)).toHaveValue('');
});
