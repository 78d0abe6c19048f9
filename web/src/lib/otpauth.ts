/** The otpauth URI's secret, shown for people who type it instead of scanning. */
export const secretOf = (uri: string) => new URL(uri).searchParams.get('secret') ?? '';
