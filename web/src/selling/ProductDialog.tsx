import { PREMIUM_MEANS } from '../keys/KeyFormParts';
import { useState } from 'react';
import { Button, Checkbox, Group, Modal, NativeSelect, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { PRODUCT_PATH, PRODUCTS_PATH, wholeNumberError, type Expiration, type Product } from './types';
import { MAX_SESSIONS_HINT } from '../keys/GenerateDialog';

/** Create (product null) or edit a product. Numbers are checked here with a sentence and never changed silently. */
export function ProductDialog({
  opened,
  onClose,
  serviceId,
  product,
}: {
  opened: boolean;
  onClose: () => void;
  serviceId: string;
  product: Product | null;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(product?.name ?? '');
  const [expiration, setExpiration] = useState<Expiration>((product?.expirationType as Expiration | undefined) ?? 'byDays');
  const [days, setDays] = useState<number | string>(product?.days ?? 30);
  const [maxHwids, setMaxHwids] = useState<number | string>(product?.maxHwids ?? 1);
  const [maxSessions, setMaxSessions] = useState<number | string>(product?.maxSessions ?? 0);
  const [isPremium, setIsPremium] = useState(product?.isPremium ?? false);
  const [note, setNote] = useState(product?.note ?? '');
  const [checked, setChecked] = useState(false);
  const daysError = expiration === 'lifetime' ? null : wholeNumberError('Days', days, 1, 3650);
  const hwidsError = wholeNumberError('Max HWIDs', maxHwids, 1, 100);
  const sessionsError = wholeNumberError('Devices at once', maxSessions, 0, 100);
  const nameError = name.trim() === '' ? 'Name is required.' : null;
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name: name.trim(),
        expirationType: expiration,
        days: expiration === 'lifetime' ? null : Number(days),
        isPremium,
        maxHwids: Number(maxHwids),
        maxSessions: Number(maxSessions),
        note: note.trim() || null,
      };
      const headers = serviceHeaders(serviceId);
      return product
        ? unwrap(await api.PUT(PRODUCT_PATH, { headers, params: { path: { id: product.id } }, body }))
        : unwrap(await api.POST(PRODUCTS_PATH, { headers, body }));
    },
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: ['products', serviceId] });
      notifySuccess(product ? `Product ${saved.name} saved` : `Product ${saved.name} created`);
      onClose();
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title={product ? 'Edit product' : 'New product'} centered>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setChecked(true);
          if (!nameError && !daysError && !hwidsError && !sessionsError) save.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Name"
            maxLength={64}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={checked && nameError}
            data-autofocus
          />
          <NativeSelect
            label="Expiration"
            value={expiration}
            onChange={(e) => setExpiration(e.currentTarget.value as Expiration)}
            data={[
              { value: 'byDays', label: 'Days from sale' },
              { value: 'afterRedeem', label: 'Starts when redeemed' },
              { value: 'lifetime', label: 'Lifetime' },
            ]}
          />
          {expiration !== 'lifetime' && (
            <NumberInput
              label="Days"
              description={expiration === 'afterRedeem' ? 'Counted from the first time the buyer uses the key' : 'Counted from the sale'}
              value={days}
              onChange={setDays}
              allowDecimal={false}
              clampBehavior="none"
              error={checked && daysError}
            />
          )}
          <NumberInput
            label="Max HWIDs"
            value={maxHwids}
            onChange={setMaxHwids}
            allowDecimal={false}
            clampBehavior="none"
            error={checked && hwidsError}
          />
          <NumberInput
            label="Devices at once"
            description={MAX_SESSIONS_HINT}
            value={maxSessions}
            onChange={setMaxSessions}
            allowDecimal={false}
            clampBehavior="none"
            error={checked && sessionsError}
          />
          <Checkbox
            label="Premium"
            description={PREMIUM_MEANS}
            checked={isPremium}
            onChange={(e) => setIsPremium(e.currentTarget.checked)}
          />
          <TextInput
            label="Note"
            description="Written on every key sold"
            maxLength={256}
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
          />
          {save.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(save.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {product ? 'Save' : 'Create'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
